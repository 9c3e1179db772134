import AutomergeStore
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle

/// An automerge-repo sync server: peers of the automerge-repo network
/// (automerge-repo in JavaScript, samod in Rust, ``RepoClient``) connect
/// over WebSocket and sync documents by id; every document lives in an
/// AutomergeStore `Datastore`.
///
/// A change a peer sends is committed (one SQLite transaction) before the
/// server answers it, so a shutdown, or a crash of the server process,
/// loses nothing it acknowledged (an OS crash or power loss can lose the
/// last commits: the datastore's SQLite runs WAL with `synchronous=NORMAL`).
///
/// ```swift
/// let datastore = try DatastoreManager(directory: "/var/lib/sync").datastoreNamed("repo")
/// let server = RepoServer(datastore: datastore, configuration: .init(port: 3030))
/// try await server.run()   // until cancelled, or SIGTERM with runUntilSignalled()
/// ```
///
/// A server runs once: after its shutdown, make a new one to serve again.
public final class RepoServer: Service, Sendable {
    /// The datastore holding the documents.
    public let datastore: Datastore
    /// How the server listens and what it allows each connection.
    public let configuration: RepoServerConfiguration
    let hub: RepoHub
    /// Every open connection, for the caps and the shutdown.
    let registry: ConnectionRegistry
    /// What all connections' received, unhandled bytes draw on.
    let inboundBudget: MemoryBudget
    /// What all connections' queued replies draw on.
    let outboundBudget: MemoryBudget
    private let logger: Logger
    private let port = NIOLockedValueBox<PortState>(PortState())

    private struct PortState {
        var port: Int?
        var waiters: [CheckedContinuation<Int, any Error>] = []
        var stopped = false
    }

    /// A server of the documents in `datastore`, whose document work
    /// (SQLite, Automerge) runs on `threadPool`: NIO's shared blocking pool
    /// unless the host gives its own. Bulk work (messages of
    /// ``RepoServerConfiguration/bulkMessageSize`` and over) runs on
    /// `bulkThreadPool` when given: fewer threads, or threads the host has
    /// given a lower priority, keep one peer's megabytes from delaying
    /// everyone's small edits. The host starts and shuts down both pools.
    public init(datastore: Datastore, configuration: RepoServerConfiguration = RepoServerConfiguration(),
                logger: Logger = Logger(label: "automerge.repo.server"), threadPool: NIOThreadPool = .singleton,
                bulkThreadPool: NIOThreadPool? = nil)
    {
        self.datastore = datastore
        self.configuration = configuration
        self.logger = logger
        registry = ConnectionRegistry(maximumConnections: configuration.maximumConnections,
                                      maximumConnectionsPerAddress: configuration.maximumConnectionsPerAddress)
        inboundBudget = MemoryBudget(limit: configuration.maximumInboundBytes)
        outboundBudget = MemoryBudget(limit: configuration.maximumOutboundBytes)
        hub = RepoHub(datastore: datastore, configuration: configuration, registry: registry,
                      lanes: DocumentLanes(pool: threadPool, bulkPool: bulkThreadPool,
                                           bulkPolicy: configuration.bulkExecutionPolicy), logger: logger)
        datastore.documentCacheByteLimit = configuration.documentCacheBytes
        // The log's checkpoints on the bulk pool: not on an edit's way to its reply.
        datastore.checkpointRunner = { [lanes = hub.lanes] checkpoint in lanes.runInBackground(checkpoint) }
    }

    /// The peer id the server goes by.
    public var peerId: PeerId { hub.peerId }

    /// Listens and serves until the task is cancelled or, inside a
    /// `ServiceGroup`, a graceful shutdown: connections that never joined
    /// close at once, open WebSockets are asked to close (each after its
    /// messages in hand are handled), those still open after
    /// ``RepoServerConfiguration/shutdownGracePeriod`` are closed, and the call returns.
    public func run() async throws {
        let application = Application(
            router: Router(),
            server: HTTPServerBuilder { [self] responder in
                GatedChildChannel(inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, configuration: upgradeConfiguration,
                    shouldUpgrade: { [self] _, channel, _ in
                        .upgrade([:]) { inbound, outbound, _ in await self.serve(inbound, outbound, on: channel) }
                    }), makeGate: makeGate)
            },
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port),
                                                    serverName: nil, backlog: configuration.backlog),
            onServerRunning: { [port] channel in Self.announce(channel.localAddress?.port, to: port) },
            logger: logger
        )
        defer { Self.announce(nil, to: port) }
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await application.run()
            } onGracefulShutdown: { [self] in
                beginShutdown()
            }
        } onCancel: { [self] in
            beginShutdown()
        }
    }

    /// Closes the connections that never joined now, and every other one
    /// left after the grace period, so that a shutdown never waits on a
    /// peer; document work not started by then is dropped (it was never
    /// acknowledged), so that it never waits on a queue of work either.
    private func beginShutdown() {
        registry.drain()
        hub.lanes.beginDraining()
        Task { [registry, configuration, lanes = hub.lanes] in
            try? await Task.sleep(for: configuration.shutdownGracePeriod)
            lanes.stop()
            registry.closeAll()
        }
    }

    /// Runs the server until SIGTERM or SIGINT, then shuts down as ``run()`` does.
    public func runUntilSignalled() async throws {
        let group = ServiceGroup(configuration: .init(services: [self], gracefulShutdownSignals: [.sigterm, .sigint],
                                                      logger: logger))
        try await group.run()
    }

    /// Runs the server until the calling task is cancelled, which shuts it
    /// down gracefully (as a signal does for ``runUntilSignalled()``).
    public func runUntilCancelled() async throws {
        let group = ServiceGroup(configuration: .init(services: [self], logger: logger))
        try await withTaskCancellationHandler {
            try await group.run()
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }

    /// The port the server accepts connections on, once it does (useful with port 0).
    /// - Throws: ``RepoServerError/notListening`` when the server stopped first.
    public func listeningPort() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let ready = port.withLockedValue { state -> Result<Int, any Error>? in
                if let port = state.port { return .success(port) }
                if state.stopped { return .failure(RepoServerError.notListening) }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    private static func announce(_ listening: Int?, to box: NIOLockedValueBox<PortState>) {
        let (waiters, result) = box.withLockedValue { state -> ([CheckedContinuation<Int, any Error>], Result<Int, any Error>) in
            let waiters = state.waiters
            state.waiters = []
            if let listening {
                state.port = listening
                return (waiters, .success(listening))
            }
            state.port = nil
            state.stopped = true
            return (waiters, .failure(RepoServerError.notListening))
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    private var upgradeConfiguration: HTTP1WebSocketUpgradeChannel.Configuration {
        // No WSCore keep-alive: the connection's gate keeps it (see ConnectionGate).
        HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(),
            ws: WebSocketServerConfiguration(maxFrameSize: configuration.maximumMessageSize, autoPing: .disabled)
        )
    }

    @Sendable private func makeGate() -> ConnectionGate {
        let perConnection = max(configuration.maximumInboundBytesPerConnection, configuration.maximumMessageSize + 65536)
        return ConnectionGate(
            registry: registry, meter: InboundMeter(budget: inboundBudget, limit: perConnection),
            timing: ConnectionGate.Timing(handshake: TimeAmount(configuration.handshakeTimeout),
                                          keepAlive: TimeAmount(configuration.keepAliveInterval),
                                          message: TimeAmount(configuration.messageTimeout)),
            receiving: ByteAllowance(bytesPerSecond: configuration.receiveBytesPerSecond,
                                     burst: configuration.receiveBurstBytes),
            logger: logger)
    }

    /// One upgraded connection, until it ends. A peer whose replies overflow
    /// its outbox does not read: its socket is closed at once, since a
    /// close handshake would wait behind the unread bytes.
    private func serve(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, on channel: any Channel) async {
        guard let meter = registry.meter(of: channel) else { return }  // closed before it was upgraded
        await FrameUnmasker.install(on: channel)
        let outbox = Outbox(limit: configuration.maximumQueuedBytes, budget: outboundBudget) { channel.close(promise: nil) }
        await ConnectionSession(hub: hub, channel: channel, meter: meter, outbox: outbox,
                                maximumMessageSize: configuration.maximumMessageSize,
                                maximumEphemeralSize: configuration.maximumEphemeralMessageSize)
            .run(inbound: inbound, outbound: outbound)
    }
}

/// Why a ``RepoServer`` call failed.
public enum RepoServerError: Error, Equatable, Sendable {
    /// The server stopped (or failed to start) before it listened.
    case notListening
}

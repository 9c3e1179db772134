import AutomergeStore
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
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
public final class RepoServer: Service, Sendable {
    /// The datastore holding the documents.
    public let datastore: Datastore
    /// How the server listens and what it allows each connection.
    public let configuration: RepoServerConfiguration
    let hub: RepoHub
    private let logger: Logger
    private let port = NIOLockedValueBox<PortState>(PortState())

    private struct PortState {
        var port: Int?
        var waiters: [CheckedContinuation<Int, any Error>] = []
        var stopped = false
    }

    /// A server of the documents in `datastore`.
    public init(datastore: Datastore, configuration: RepoServerConfiguration = RepoServerConfiguration(),
                logger: Logger = Logger(label: "automerge.repo.server"))
    {
        self.datastore = datastore
        self.configuration = configuration
        self.logger = logger
        hub = RepoHub(datastore: datastore, configuration: configuration, logger: logger)
        datastore.documentCacheByteLimit = configuration.documentCacheBytes
    }

    /// The peer id the server goes by.
    public var peerId: PeerId { hub.peerId }

    /// Listens and serves until the task is cancelled or, inside a
    /// `ServiceGroup`, a graceful shutdown: open WebSockets are closed
    /// (each after its messages in hand are handled) and the call returns.
    public func run() async throws {
        let application = Application(
            router: Router(),
            server: .http1WebSocketUpgrade(configuration: upgradeConfiguration) { [hub, configuration] _, channel, _ in
                .upgrade([:]) { inbound, outbound, _ in
                    try await Self.serve(inbound: inbound, outbound: outbound, channel: channel, hub: hub,
                                         configuration: configuration)
                }
            },
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port),
                                                    serverName: nil, backlog: configuration.backlog),
            onServerRunning: { [port] channel in Self.announce(channel.localAddress?.port, to: port) },
            logger: logger
        )
        defer { Self.announce(nil, to: port) }
        try await application.run()
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
        HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(),
            ws: WebSocketServerConfiguration(maxFrameSize: configuration.maximumMessageSize,
                                             autoPing: .enabled(timePeriod: configuration.keepAliveInterval))
        )
    }

    /// One connection: reads messages into the hub while a second task writes its outbox.
    /// A peer whose replies overflow its outbox does not read: its socket is
    /// closed at once, since a close handshake would wait behind the unread bytes.
    private static func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel,
                              hub: RepoHub,
                              configuration: RepoServerConfiguration) async throws
    {
        let outbox = Outbox(limit: configuration.maximumQueuedBytes) { channel.close(promise: nil) }
        let id = await hub.connect(outbox: outbox)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await outbox.drain(into: outbound) }
            defer { group.cancelAll() }
            do {
                for try await message in inbound.messages(maxSize: configuration.maximumMessageSize) {
                    guard case .binary(let buffer) = message else {
                        _ = await hub.receive([], from: id)  // a text frame is malformed: refused like one
                        break
                    }
                    if await hub.receive(Array(buffer.readableBytesView), from: id) == .close { break }
                    if outbox.hasOverflowed { break }
                }
            } catch {
                // The socket closed or broke (WSCore has answered protocol errors already).
            }
            await hub.disconnect(id)
            if outbox.hasOverflowed { group.cancelAll() }  // the socket is closed: drop what is queued
            await group.next()
        }
    }
}

/// Why a ``RepoServer`` call failed.
public enum RepoServerError: Error, Equatable, Sendable {
    /// The server stopped (or failed to start) before it listened.
    case notListening
}

import Automerge
import AutomergeRepo
import AutomergeStore
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOPosix
import Testing

/// A ``RepoServer`` on a loopback port, over a datastore in a temporary
/// folder that outlives restarts of the server.
final class LoopbackServer: @unchecked Sendable {
    let directory: URL
    let configuration: RepoServerConfiguration
    /// The pool the server runs bulk work on, if any.
    let bulkPool: NIOThreadPool?
    private(set) var server: RepoServer
    private var task: Task<Void, any Error>
    private(set) var port: Int

    /// Starts a server on a free port, running bulk work on `bulkPool` when given.
    static func start(_ configuration: RepoServerConfiguration = RepoServerConfiguration(port: 0),
                      bulkPool: NIOThreadPool? = nil) async throws -> LoopbackServer
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("repo-\(UUID().uuidString)")
        var configuration = configuration
        configuration.port = 0
        let (server, task, port) = try await launch(directory: directory, configuration: configuration, bulkPool: bulkPool)
        return LoopbackServer(directory: directory, configuration: configuration, bulkPool: bulkPool, server: server,
                              task: task, port: port)
    }

    private init(directory: URL, configuration: RepoServerConfiguration, bulkPool: NIOThreadPool?, server: RepoServer,
                 task: Task<Void, any Error>, port: Int)
    {
        self.directory = directory
        self.configuration = configuration
        self.bulkPool = bulkPool
        self.server = server
        self.task = task
        self.port = port
    }

    private static func launch(directory: URL, configuration: RepoServerConfiguration, bulkPool: NIOThreadPool?) async throws
        -> (RepoServer, Task<Void, any Error>, Int)
    {
        let datastore = try DatastoreManager(directory: directory.path).datastoreNamed("repo")
        var logger = Logger(label: "test.server")
        // REPO_TEST_LOG=1 shows why the server closed connections.
        logger.logLevel = ProcessInfo.processInfo.environment["REPO_TEST_LOG"] == nil ? .critical : .info
        // A pool of the server's own: the servers of tests running at once do not wait on each other's documents.
        let server = RepoServer(datastore: datastore, configuration: configuration, logger: logger,
                                threadPool: lanePool, bulkThreadPool: bulkPool)
        let task = Task { try await server.runUntilCancelled() }
        return (server, task, try await server.listeningPort())
    }

    var url: String { "ws://127.0.0.1:\(port)" }

    /// Stops the server: its connections close and its datastore is released.
    func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    /// Stops the server and starts a new one on the same port and datastore.
    func restart() async throws {
        await stop()
        var configuration = configuration
        configuration.port = port
        (server, task, _) = try await Self.launch(directory: directory, configuration: configuration, bulkPool: bulkPool)
    }

    /// The stored copy of a document, read from a fresh open of the datastore.
    func storedDocument(_ id: DocumentId) throws -> Document? {
        try DatastoreManager(directory: directory.path).datastoreNamed("repo").storedAutomergeDocument(id.description)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// The thread pool every loopback server's document work runs on: as many
/// threads as tests may keep busy at once, so that one test's long apply
/// never waits behind another's.
let lanePool: NIOThreadPool = {
    let pool = NIOThreadPool(numberOfThreads: 8)
    pool.start()
    return pool
}()

/// A client of `server` with fast reconnection, silent logs and, when given, storage.
func loopbackClient(_ server: LoopbackServer, storage: Datastore? = nil) -> RepoClient {
    loopbackClient(url: server.url, storage: storage)
}

/// A client of the server at `url`, as ``loopbackClient(_:storage:)`` makes them,
/// waiting `closeTimeout` for the server's close frame.
func loopbackClient(url: String, storage: Datastore? = nil, closeTimeout: Duration = .seconds(2)) -> RepoClient {
    var logger = Logger(label: "test.client")
    logger.logLevel = .critical
    return RepoClient(url: url, storage: storage,
                      configuration: RepoClientConfiguration(initialReconnectDelay: .milliseconds(20),
                                                             maximumReconnectDelay: .milliseconds(200),
                                                             findTimeout: .seconds(20), closeTimeout: closeTimeout),
                      logger: logger)
}

/// A datastore in a new temporary folder.
func temporaryDatastore(_ folder: URL = FileManager.default.temporaryDirectory
    .appendingPathComponent("repo-client-\(UUID().uuidString)")) throws -> Datastore
{
    try DatastoreManager(directory: folder.path).datastoreNamed("client")
}

/// Waits until `condition` holds, checking every 20 ms; records a failure
/// naming `what` when it still does not after `timeout`.
func eventually(_ what: String, timeout: Duration = .seconds(20), sourceLocation: SourceLocation = #_sourceLocation,
                _ condition: () async throws -> Bool) async rethrows
{
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try? await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
}

/// The string at `key` in the root map, if there is one.
func rootString(_ document: Document, _ key: String) -> String? {
    guard case .Scalar(.String(let value))? = try? document.get(obj: .ROOT, key: key) else { return nil }
    return value
}

/// A WebSocket peer that writes whatever bytes a test gives it and collects
/// the server's answers, decoded, until the server closes or `timeout` passes.
enum RawPeer {
    enum Frame: Sendable {
        case binary([UInt8])
        case text(String)
    }

    struct Exchange: Sendable {
        var received: [RepoMessage] = []
        /// Whether the server closed the connection before the time was up.
        var closedByServer = false
    }

    /// Sends `frames`, then collects what the server sends until it closes
    /// the connection, `done` holds for what was received, or `timeout` passes.
    static func exchange(_ server: LoopbackServer, sending frames: [Frame], timeout: Duration = .seconds(15),
                         maximumFrameSize: Int = 1 << 24, until done: @escaping ([RepoMessage]) -> Bool = { _ in false })
        async throws -> Exchange
    {
        let collected = Collected()
        var logger = Logger(label: "test.raw")
        logger.logLevel = .critical
        let reader = Task {
            try await WebSocketClient.connect(url: server.url,
                                              configuration: WebSocketClientConfiguration(maxFrameSize: maximumFrameSize),
                                              logger: logger)
            { inbound, outbound, _ in
                for frame in frames {
                    switch frame {
                    case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                    case .text(let text): try await outbound.write(.text(text))
                    }
                }
                for try await message in inbound.messages(maxSize: maximumFrameSize) {
                    if case .binary(let buffer) = message {
                        collected.append(try RepoMessage(decoding: Array(buffer.readableBytesView)))
                    }
                }
                collected.markClosed()
            }
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, !collected.snapshot.closedByServer, !done(collected.snapshot.received) {
            try await Task.sleep(for: .milliseconds(20))
        }
        reader.cancel()
        _ = try? await reader.value
        return collected.snapshot
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var exchange = Exchange()
        func append(_ message: RepoMessage) { lock.withLock { exchange.received.append(message) } }
        func markClosed() { lock.withLock { exchange.closedByServer = true } }
        var snapshot: Exchange { lock.withLock { exchange } }
    }

    static let peerId = PeerId("raw-test-peer")

    static var join: Frame {
        .binary(RepoMessage.join(senderId: peerId, supportedProtocolVersions: ["1"], peerMetadata: nil).encoded())
    }
}

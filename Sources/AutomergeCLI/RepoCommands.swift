import ArgumentParser
import Automerge
import AutomergeCommandSupport
import AutomergeConformance
import AutomergeRepo
import AutomergeStore
import Dispatch
import Foundation
import Logging

/// `automerge serve --port P --store DIR`: an automerge-repo sync server
/// whose documents live in the datastore `repo` under DIR. Prints
/// `listening PORT` once it accepts connections; SIGTERM or SIGINT shut it
/// down cleanly (every change it acknowledged is on disk before that).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run an automerge-repo WebSocket sync server on a datastore.")

    @Option(help: "The TCP port (0 picks a free one).") var port = 3030
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The datastore directory (created when absent).") var store: String
    @Option(help: "The largest message a peer may send, in bytes.") var maxMessageBytes = 32 << 20
    @Option(help: "The most documents one connection may sync.") var maxDocumentsPerConnection = 100_000
    @Option(help: "Memory for loaded documents kept between messages, in MiB.") var documentCacheMb = 1024
    @Option(help: "The most connections open at once.") var maxConnections = 10_000
    @Option(help: "The most connections open at once from one IP address.") var maxConnectionsPerAddress = 1_000
    @Option(help: "Seconds a connection has to upgrade and join.") var handshakeTimeout = 10
    @Option(help: "Memory for bytes received and not yet handled, all connections together, in MiB.") var maxInboundMb = 512
    @Option(help: "Memory for replies waiting to be written, all connections together, in MiB.") var maxOutboundMb = 512
    @Option(help: "How fast one connection's bytes are read past its burst, in MiB a second.") var receiveRateMb = 4
    @Option(help: "How much one connection may send at full speed before --receive-rate-mb applies, in MiB.")
    var receiveBurstMb = 16
    @Option(help: "Threads for bulk work (applying messages of 256 KiB and over; a thread a core unless given); 0 runs it with the rest.")
    var bulkThreads = ProcessInfo.processInfo.activeProcessorCount
    @Option(help: "The nice value (0-19) of the bulk threads: the cores go to small edits first.") var bulkNice: Int32 = 10

    func validate() throws {
        guard bulkThreads >= 0 else { throw ValidationError("--bulk-threads: 0 or more") }
        guard receiveRateMb > 0, receiveBurstMb >= 0 else {
            throw ValidationError("--receive-rate-mb: more than 0; --receive-burst-mb: 0 or more")
        }
        guard (0...19).contains(bulkNice) else { throw ValidationError("--bulk-nice: 0 to 19") }
    }

    func run() throws {
        let datastore = try DatastoreManager(directory: store).datastoreNamed("repo")
        let server = RepoServer(
            datastore: datastore,
            configuration: RepoServerConfiguration(host: host, port: port, maximumMessageSize: maxMessageBytes,
                                                   maximumDocumentsPerConnection: maxDocumentsPerConnection,
                                                   documentCacheBytes: documentCacheMb << 20,
                                                   maximumConnections: maxConnections,
                                                   maximumConnectionsPerAddress: maxConnectionsPerAddress,
                                                   handshakeTimeout: .seconds(handshakeTimeout),
                                                   maximumInboundBytes: maxInboundMb << 20,
                                                   receiveBytesPerSecond: receiveRateMb << 20,
                                                   receiveBurstBytes: receiveBurstMb << 20,
                                                   maximumOutboundBytes: maxOutboundMb << 20),
            logger: quietLogger("automerge.serve"),
            bulkThreadPool: bulkThreads > 0 ? lowPriorityThreadPool(threads: bulkThreads, niceness: bulkNice) : nil)
        try runBlocking { [host, port] in
            let running = Task { try await server.runUntilSignalled() }
            do {
                let listening = try await server.listeningPort()
                FileHandle.standardOutput.write(Data("listening \(listening)\n".utf8))
            } catch {
                // It never listened: say why, from the server's own error.
                let reason = await running.result.failure.map { "\($0)" } ?? "it stopped first"
                throw CommandFailure("cannot listen on \(host):\(port): \(reason)")
            }
            try await running.value
        }
    }
}

/// `automerge repo-sync ws://HOST:PORT automerge:ID`: fetches the document
/// and prints its canonical dump once the client and server agree.
struct RepoSyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repo-sync", abstract: "Fetch a document from an automerge-repo server and print its dump.")

    @Argument(help: "The server's WebSocket URL.") var server: String
    @Argument(help: "The document's automerge: URL.") var url: String
    @Option(help: "Seconds to wait for the server.") var timeout = 30
    @Option(help: "Seconds to wait, when done, for the server to answer the WebSocket close.") var closeTimeout = 2

    func run() throws {
        let documentURL: AutomergeURL
        do {
            documentURL = try AutomergeURL(url)
        } catch {
            throw CommandFailure("'\(url)' is not an automerge: URL: \(error)")
        }
        let document = try withRepoClient(server, closeTimeout: closeTimeout) { [server, timeout] client in
            do {
                let handle = try await client.find(documentURL, timeout: .seconds(timeout))
                try await handle.waitUntilSynced(timeout: .seconds(timeout))
                return handle.document
            } catch RepoError.documentUnavailable {
                throw CommandFailure("the server does not have \(documentURL)")
            } catch RepoError.timedOut {
                throw CommandFailure("no answer from \(server) about \(documentURL) within \(timeout) s")
            }
        }
        FileHandle.standardOutput.write(Data(CanonicalDump.serialized(document) + [UInt8(ascii: "\n")]))
    }
}

/// `automerge repo-create ws://HOST:PORT BODY_JSON`: creates a document with
/// the JSON object as its root map, waits until the server holds it, and
/// prints its `automerge:` URL.
struct RepoCreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repo-create", abstract: "Create a document on an automerge-repo server and print its URL.")

    @Argument(help: "The server's WebSocket URL.") var server: String
    @Argument(help: "The body, a JSON object (- for standard input).") var body: String
    @Option(help: "Seconds to wait for the server.") var timeout = 30
    @Option(help: "Seconds to wait, when done, for the server to answer the WebSocket close.") var closeTimeout = 2

    func run() throws {
        let document = Document()
        do {
            try AutomergeEncoder(doc: document).encode(try bodyArgument(body))
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure("the body does not encode as a document: \(error)")
        }
        let url = try withRepoClient(server, closeTimeout: closeTimeout) { [server, timeout] client in
            let handle = try await client.create(document)
            do {
                try await handle.waitUntilSynced(timeout: .seconds(timeout))
            } catch RepoError.timedOut {
                throw CommandFailure("\(server) did not take the document within \(timeout) s")
            }
            return handle.url
        }
        print(url)
    }
}

/// Runs `body` with a client of `server` and closes the client after it,
/// failed or not (`leave`, then the WebSocket close handshake, given
/// `closeTimeout` seconds), blocking until both are done: the process never
/// exits with the socket still open.
func withRepoClient<T: Sendable>(_ server: String, closeTimeout: Int,
                                 _ body: @escaping @Sendable (RepoClient) async throws -> T) throws -> T
{
    try runBlocking {
        let client = RepoClient(url: server, configuration: RepoClientConfiguration(closeTimeout: .seconds(max(0, closeTimeout))),
                                logger: quietLogger("automerge.repo"))
        do {
            let result = try await body(client)
            await client.close()
            return result
        } catch {
            await client.close()
            throw error
        }
    }
}

extension Result {
    /// The error, when this is a failure.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

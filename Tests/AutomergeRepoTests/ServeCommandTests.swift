import AutomergeRepo
import AutomergeStore
import AutomergeTestSupport
import Foundation
import Testing

/// `automerge serve`, `repo-create` and `repo-sync` as a user runs them:
/// the server announces its port first, the client commands create and
/// print a document, and SIGTERM stops the server with every document it
/// acknowledged on disk.
@Suite("automerge serve / repo-create / repo-sync", .serialized)
struct ServeCommandTests {
    @Test("serve prints 'listening PORT' first; create and sync through it; a taken port is one error line; SIGTERM keeps every document")
    func serveCreateSyncTerminate() async throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: store) }
        let server = Process()
        server.executableURL = try #require(AutomergeExecutable.url)
        server.arguments = ["serve", "--port", "0", "--store", store.path]
        let output = Pipe()
        server.standardOutput = output
        // Not read: a full pipe would stall the server.
        (server.standardInput, server.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice)
        try server.run()
        defer { if server.isRunning { server.terminate() } }

        let line = try await firstLine(of: output)
        let port = try #require(listeningPort(line), "first line: \(line)")
        let address = "ws://127.0.0.1:\(port)"
        let created = try await AutomergeExecutable.run(["repo-create", address, #"{"title":"made by repo-create","tags":["a","b"]}"#])
        #expect(created.status == 0, "\(created.stderr)")
        let url = try AutomergeURL(created.stdout.trimmingCharacters(in: .whitespacesAndNewlines))

        let synced = try await AutomergeExecutable.run(["repo-sync", address, url.description])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout.contains(#""title":{"str":"made by repo-create"}"#))

        let missing = try await AutomergeExecutable.run(["repo-sync", "--timeout", "5", address, AutomergeURL(documentId: .random()).description])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("does not have"))

        let second = try await AutomergeExecutable.run(["serve", "--port", "\(port)", "--store", store.path + "-second"])
        #expect(second.status == 1)
        #expect(second.stderr.contains("cannot listen on 127.0.0.1:\(port)"), "\(second.stderr)")
        try? FileManager.default.removeItem(atPath: store.path + "-second")

        server.terminate()  // SIGTERM
        try await blockingWork { server.waitUntilExit() }
        #expect(server.terminationReason == .exit && server.terminationStatus == 0)
        let datastore = try DatastoreManager(directory: store.path).datastoreNamed("repo")
        let stored = try #require(try datastore.storedAutomergeDocument(url.documentId.description))
        #expect(rootString(stored, "title") == "made by repo-create")
    }
}

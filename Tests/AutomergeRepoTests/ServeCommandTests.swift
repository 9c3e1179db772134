import AutomergeRepo
import AutomergeStore
import Foundation
import Testing

/// `automerge serve`, `repo-create` and `repo-sync` as a user runs them:
/// the server announces its port first, the client commands create and
/// print a document, and SIGTERM stops the server with every document it
/// acknowledged on disk.
@Suite("automerge serve / repo-create / repo-sync", .serialized)
struct ServeCommandTests {
    /// The `automerge` executable built beside the test bundle.
    static let executable: URL? = {
        let testsDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return [testsDirectory.appendingPathComponent("automerge"),
                packageRoot.appendingPathComponent(".build/debug/automerge")]
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs a client command to its end; returns its status and standard output.
    func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = try #require(Self.executable)
        process.arguments = arguments
        let stdout = Pipe(), stderr = Pipe()
        (process.standardOutput, process.standardError) = (stdout, stderr)
        try process.run()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    /// Reads standard output up to its first newline.
    func firstLine(of pipe: Pipe) -> String {
        var bytes = [UInt8]()
        while true {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            bytes += chunk
            if bytes.contains(UInt8(ascii: "\n")) { break }
        }
        return String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }

    @Test("serve prints 'listening PORT' first; create and sync through it; a taken port is one error line; SIGTERM keeps every document")
    func serveCreateSyncTerminate() throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: store) }
        let server = Process()
        server.executableURL = try #require(Self.executable)
        server.arguments = ["serve", "--port", "0", "--store", store.path]
        let output = Pipe()
        server.standardOutput = output
        server.standardError = Pipe()
        try server.run()
        defer { if server.isRunning { server.terminate() } }

        let line = firstLine(of: output)
        let port = try #require(line.hasPrefix("listening ") ? Int(line.dropFirst("listening ".count)) : nil,
                                "first line: \(line)")
        let address = "ws://127.0.0.1:\(port)"
        let created = try run(["repo-create", address, #"{"title":"made by repo-create","tags":["a","b"]}"#])
        #expect(created.status == 0, "\(created.stderr)")
        let url = try AutomergeURL(created.stdout.trimmingCharacters(in: .whitespacesAndNewlines))

        let synced = try run(["repo-sync", address, url.description])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout.contains(#""title":{"str":"made by repo-create"}"#))

        let missing = try run(["repo-sync", "--timeout", "5", address, AutomergeURL(documentId: .random()).description])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("does not have"))

        let second = try run(["serve", "--port", "\(port)", "--store", store.path + "-second"])
        #expect(second.status == 1)
        #expect(second.stderr.contains("cannot listen on 127.0.0.1:\(port)"), "\(second.stderr)")
        try? FileManager.default.removeItem(atPath: store.path + "-second")

        server.terminate()  // SIGTERM
        server.waitUntilExit()
        #expect(server.terminationReason == .exit && server.terminationStatus == 0)
        let datastore = try DatastoreManager(directory: store.path).datastoreNamed("repo")
        let stored = try #require(try datastore.storedAutomergeDocument(url.documentId.description))
        #expect(rootString(stored, "title") == "made by repo-create")
    }
}

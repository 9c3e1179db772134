import Foundation
import GRDB
import AutomergeConformance
import AutomergeTestSupport
import Testing
@testable import AutomergeStore

/// An acknowledged write survives the writer's `kill -9`: a child process
/// (`automerge store DIR NAME import`) creates and updates documents,
/// acknowledging each once its call returns, and is killed at a random
/// moment, 100 times over one datastore. After each kill the datastore opens
/// cleanly, passes SQLite's integrity check, and holds every acknowledged
/// write; of the line being written when the kill came, either all or
/// nothing is there.
@Suite("Datastore: crash durability")
struct CrashDurabilityTests {
    /// One import line: the document it writes and the body it gives it.
    struct Line {
        let docId: String
        let body: BodyValue
        var text: String {
            var fields = body.mapValue!
            fields["_id"] = .string(docId)
            return String(decoding: try! BodyJSON.encode(.map(fields)), as: UTF8.self)
        }
    }

    @Test("every acknowledged write survives kill -9 at a random point, 100 times",
          .enabled(if: AutomergeExecutable.url != nil, "the automerge executable is not built beside the tests"))
    func acknowledgedWritesSurviveKill() async throws {
        signal(SIGPIPE, SIG_IGN)
        let seed = UInt64.random(in: 0...UInt64.max)
        print("crash durability seed: \(seed)")
        var random = SeededGenerator(seed: seed)
        let store = try TemporaryStore()
        var expected: [String: BodyValue] = [:]
        var written = 0
        for round in 0..<100 {
            let lines = (0..<200).map { index -> Line in
                written += 1
                let existing = expected.keys.sorted()
                let docId = !existing.isEmpty && random.next() % 8 != 0
                    ? existing[Int(random.next() % UInt64(existing.count))] : "doc-\(round)-\(index)"
                let padding = String(repeating: "x", count: Int(random.next() % 150))
                return Line(docId: docId, body: ["write": .int(Int64(written)), "round": .int(Int64(round)),
                                                 "text": .string(padding)])
            }
            let acknowledged = try await runAndKill(lines, directory: store.directory.path,
                                              afterMilliseconds: Int(random.next() % 300))
            try verify(directory: store.directory, lines: lines, acknowledged: acknowledged, expected: &expected,
                       everyDocument: round % 25 == 24, context: "seed \(seed), round \(round)")
        }
    }

    /// Starts an import of `lines`, kills it with SIGKILL after `delay`, and
    /// returns the revision ids it acknowledged, in order.
    private func runAndKill(_ lines: [Line], directory: String, afterMilliseconds delay: Int) async throws -> [String] {
        let executable = try #require(AutomergeExecutable.url)
        let input = Data(lines.map { $0.text + "\n" }.joined().utf8)
        let acknowledgements = try await blockingWork {
            let process = Process()
            process.executableURL = executable
            process.arguments = ["store", directory, "crash", "import"]
            let stdin = Pipe(), stdout = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = FileHandle.nullDevice
            try process.run()
            // 200 lines of at most 200 bytes fit the pipe's buffer: the write never blocks.
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
            Thread.sleep(forTimeInterval: Double(delay) / 1000)
            kill(process.processIdentifier, SIGKILL)
            let acknowledgements = stdout.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return acknowledgements
        }
        return String(decoding: acknowledgements, as: UTF8.self).split(separator: "\n").map { line in
            let fields = (try? BodyJSON.decode(Data(line.utf8)))?.mapValue
            return fields?["rev"]?.stringValue ?? "(malformed acknowledgement: \(line))"
        }
    }

    /// Checks the datastore after a kill and brings `expected` (every
    /// document's body) up to date with what the import committed. The
    /// documents the round wrote are checked every round, all of them when
    /// `everyDocument` is set.
    private func verify(directory: URL, lines: [Line], acknowledged: [String], expected: inout [String: BodyValue],
                        everyDocument: Bool, context: String) throws
    {
        let path = directory.appendingPathComponent("crash/datastore.sqlite").path
        // A kill that comes before the child has created the datastore (the
        // first round, a few milliseconds in) leaves none: then nothing may
        // have been acknowledged.
        guard FileManager.default.fileExists(atPath: path) else {
            #expect(acknowledged.isEmpty, "\(context): writes acknowledged, yet no datastore")
            return
        }
        let integrity = try DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == ["ok"], "\(context)")
        let datastore = try DatastoreManager(directory: directory.path).datastoreNamed("crash")
        for (line, revId) in zip(lines, acknowledged) {
            let revision = try datastore.getDocumentWithId(line.docId, revId: revId)
            #expect(revision.body == line.body, "\(context): acknowledged revision \(revId) of \(line.docId)")
            expected[line.docId] = line.body
        }
        // The line being written when the kill came may have committed.
        if acknowledged.count < lines.count {
            let inFlight = lines[acknowledged.count]
            if let current = try? datastore.getDocumentWithId(inFlight.docId), current.body == inFlight.body {
                expected[inFlight.docId] = inFlight.body
            }
        }
        let checked = everyDocument ? Set(expected.keys) : Set(lines.map(\.docId)).intersection(expected.keys)
        for docId in checked {
            #expect(try datastore.getDocumentWithId(docId).body == expected[docId], "\(context): current body of \(docId)")
        }
        #expect(try datastore.documentCount == expected.count, "\(context)")
    }
}

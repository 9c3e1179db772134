import AutomergeTestSupport
import Foundation
import Testing
@testable import AutomergeStore

/// Two processes replicate over a pipe: `automerge store A a
/// replicate-to-process 'automerge store B b replicate --stdio'`.
@Suite("Replication: two processes over standard input and output",
       .enabled(if: AutomergeExecutable.url != nil, "the automerge executable is not built beside the tests"))
struct ReplicationProcessTests {
    /// The command that serves datastore `b` of `directory` on standard input and output.
    private func peerCommand(_ directory: URL) throws -> String {
        "exec '\(try #require(AutomergeExecutable.url).path)' store '\(directory.path)' b replicate --stdio"
    }

    @Test("both ways: each side gets the other's documents, attachments and deletions; the summary counts them")
    func bothWays() async throws {
        let a = try TemporaryStore(), b = try TemporaryStore()
        let storeA = try a.manager.datastoreNamed("a"), storeB = try b.manager.datastoreNamed("b")
        for index in 0..<5 {
            let rev = DocumentRevision(docId: "a\(index)")
            rev.body = ["from": "a", "index": .int(Int64(index))]
            try storeA.createDocumentFromRevision(rev)
        }
        let withPhoto = DocumentRevision(docId: "b0")
        withPhoto.body = ["from": "b"]
        withPhoto.attachments["photo"] = UnsavedDataAttachment(data: Data(repeating: 7, count: 4096), name: "photo", type: "image/png")
        try storeB.createDocumentFromRevision(withPhoto)
        try storeA.deleteDocumentWithId("a4")

        let run = try await AutomergeExecutable.run(["store", a.directory.path, "a", "replicate-to-process", try peerCommand(b.directory)])
        #expect(run.status == 0, "\(run.stderr)")
        let summary = try BodyJSON.decode(Data(run.stdout.utf8))
        #expect(summary["documentsSent"] == 5 && summary["documentsReceived"] == 1 && summary["attachmentsReceived"] == 1)
        #expect((summary["bytesReceived"]?.intValue ?? 0) > 4096)
        #expect(run.stdout.split(separator: "\n").count == 1)

        let reopenedB = try DatastoreManager(directory: b.directory.path).datastoreNamed("b")
        #expect(try ReplicaSnapshot(storeA) == ReplicaSnapshot(reopenedB))
        #expect(try storeA.getDocumentWithId("b0").attachments["photo"]?.dataFromAttachmentContent() == Data(repeating: 7, count: 4096))
        #expect(try reopenedB.getDocumentWithId("a4").deleted)

        let again = try await AutomergeExecutable.run(["store", a.directory.path, "a", "replicate-to-process", try peerCommand(b.directory)])
        #expect(try BodyJSON.decode(Data(again.stdout.utf8))["documentsSent"] == 0)
    }

    @Test("a replication killed mid-way leaves both datastores whole, and the next run converges")
    func killedMidway() async throws {
        let a = try TemporaryStore(), b = try TemporaryStore()
        let storeA = try a.manager.datastoreNamed("a")
        try storeA.createDocumentsFromRevisions((0..<3000).map { index in
            let rev = DocumentRevision(docId: "doc\(index)")
            rev.body = ["index": .int(Int64(index)), "text": .string(String(repeating: "x", count: index % 200))]
            return rev
        })
        for delay in [60, 150, 300] {
            let process = Process()
            process.executableURL = try #require(AutomergeExecutable.url)
            process.arguments = ["store", a.directory.path, "a", "replicate-to-process", try peerCommand(b.directory)]
            // Killed before its end, its output never read.
            (process.standardInput, process.standardOutput, process.standardError) =
                (FileHandle.nullDevice, FileHandle.nullDevice, FileHandle.nullDevice)
            try process.run()
            try await Task.sleep(for: .milliseconds(delay))
            kill(process.processIdentifier, SIGKILL)
            try await blockingWork { process.waitUntilExit() }
        }
        let finished = try await AutomergeExecutable.run(["store", a.directory.path, "a", "replicate-to-process", try peerCommand(b.directory)])
        #expect(finished.status == 0, "\(finished.stderr)")
        let storeB = try DatastoreManager(directory: b.directory.path).datastoreNamed("b")
        #expect(try storeB.documentCount == 3000)
        #expect(try ReplicaSnapshot(storeA) == ReplicaSnapshot(storeB))
    }
}

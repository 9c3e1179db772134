import AutomergeTestSupport
import Foundation
import Testing
@testable import AutomergeStore

/// A replication's store calls and pipe writes block; they run on queues of
/// their own, never on Swift's cooperative threads.
@Suite("Replication: blocking calls off the cooperative pool", .ownThread)
struct ReplicationBlockingTests {
    @Test("while SQLite's writer is held elsewhere, more pulls than cores wait for it without holding a cooperative thread; once it is free they complete")
    func pullsWaitingForTheWriter() async throws {
        let store = try TemporaryStore()
        let target = try store.datastore("target")
        let sources = try (0..<(ProcessInfo.processInfo.activeProcessorCount * 2 + 2)).map { index in
            let source = try store.datastore("source_\(index)")
            let revision = DocumentRevision(docId: "doc-\(index)")
            revision.body = ["index": .int(Int64(index))]
            try source.createDocumentFromRevision(revision)
            return source
        }
        let writer = HeldResource { wait in try? target.database.writeWithoutTransaction { _ in wait() } }
        let pulls = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for source in sources { group.addTask { try await replicate(target, with: source, direction: .pull) } }
                try await group.waitForAll()
            }
        }
        // Long enough for every pull to reach the writer (this test's own thread sleeps, not the pool's).
        try await Task.sleep(for: .milliseconds(300))
        await Task.detached {}.value  // a task on the pool the pulls run on: it runs only if they left threads free
        #expect(await writer.release(), "the pulls held cooperative threads while waiting for the writer")
        try await pulls.value
        for index in sources.indices {
            #expect(try target.getDocumentWithId("doc-\(index)").body["index"] == .int(Int64(index)))
        }
    }
}

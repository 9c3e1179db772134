import Foundation
import GRDB
import Testing
@testable import AutomergeStore

/// The datastore's write-ahead log is checkpointed after writes, by the
/// writing thread once SQLite's one write lock is free (see
/// `WALCheckpointer`), not inside the commit that every other writer
/// waits for; it still never grows far past what a checkpoint takes.
@Suite("Datastore: write-ahead log")
struct WriteAheadLogTests {
    @Test("many writes leave the log short: it is checkpointed and starts again from its beginning")
    func logStaysShort() throws {
        let store = try TemporaryStore()
        let datastore = try store.datastore()
        let log = datastore.directory.appendingPathComponent("datastore.sqlite-wal").path
        // About 19 MB of pages written, almost five times what the log holds before a checkpoint is due.
        for index in 0..<128 {
            let revision = DocumentRevision(docId: "doc-\(index)")
            revision.body = ["filler": .string(incompressibleText(64 << 10, seed: UInt64(index)))]
            try datastore.createDocumentFromRevision(revision)
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int)
        #expect(size < 8 << 20, "the log holds \(size) bytes after 19 MB of pages written")
        #expect(try datastore.documentCount == 128)
    }

    @Test("with a checkpoint runner the writers never checkpoint: the runner gets each checkpoint, and running them keeps the log short")
    func checkpointsWhereTheHostSays() throws {
        let store = try TemporaryStore()
        let datastore = try store.datastore()
        let log = datastore.directory.appendingPathComponent("datastore.sqlite-wal").path
        let handed = HandedCheckpoints()
        datastore.checkpointRunner = { checkpoint in handed.append(checkpoint) }
        func write(_ range: Range<Int>) throws {
            for index in range {
                let revision = DocumentRevision(docId: "doc-\(index)")
                revision.body = ["filler": .string(incompressibleText(64 << 10, seed: UInt64(index)))]
                try datastore.createDocumentFromRevision(revision)
            }
        }
        func logSize() throws -> Int { try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int ?? 0 }
        // About 5 MB of pages: past one checkpoint's worth. Held, the checkpoint runs nowhere.
        try write(0..<32)
        #expect(handed.count == 1, "one checkpoint is handed over, and no other while it has not run")
        try write(32..<64)
        #expect(handed.count == 1)
        let held = try logSize()
        #expect(held > 8 << 20, "the log was checkpointed by a writer")
        // Run as the host would, as they come: the log starts again from its beginning and grows no more.
        datastore.checkpointRunner = { checkpoint in checkpoint() }
        handed.runFirst()
        try write(64..<192)
        let after = try logSize()
        #expect(after <= held, "the log grew from \(held) to \(after) bytes with checkpoints running")
        #expect(try datastore.documentCount == 192)
    }
}

/// The checkpoints a test's runner was handed, kept to run later.
private final class HandedCheckpoints: @unchecked Sendable {
    private let lock = NSLock()
    private var checkpoints: [@Sendable () -> Void] = []
    func append(_ checkpoint: @escaping @Sendable () -> Void) { lock.withLock { checkpoints.append(checkpoint) } }
    var count: Int { lock.withLock { checkpoints.count } }
    func runFirst() { lock.withLock { checkpoints.removeFirst() }() }
}

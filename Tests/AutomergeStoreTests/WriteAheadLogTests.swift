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
}

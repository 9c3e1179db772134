import Foundation
import GRDB
import Testing
@testable import AutomergeStore

/// How a document's Automerge bytes are kept (see `StoreSchema`): a snapshot
/// and the change chunks written since, each in its revision's row, folded
/// into a new snapshot once they outgrow it.
@Suite("Datastore: storage layout")
struct StorageLayoutTests {
    /// The bytes a document's revisions hold: (generation, length) of those
    /// that hold any, and the document row's snapshot generation and length.
    private func storedBytes(_ datastore: Datastore, _ docId: String) throws
        -> (revisions: [(generation: Int64, length: Int)], snapshotGeneration: Int64, snapshotLength: Int)
    {
        try datastore.database.read { db in
            let revisions = try Row.fetchAll(db, sql: """
                SELECT generation, length(bytes) AS length FROM revisions
                WHERE docId = ? AND bytes IS NOT NULL ORDER BY generation
                """, arguments: [docId]).map { (generation: $0["generation"] as Int64, length: $0["length"] as Int) }
            let row = try Row.fetchOne(db, sql: "SELECT snapshotGeneration, snapshotLength FROM documents WHERE docId = ?",
                                       arguments: [docId])!
            return (revisions, row["snapshotGeneration"], row["snapshotLength"])
        }
    }

    @Test("a document written 60 times keeps one snapshot and the chunks after it, never more than twice the snapshot; every revision stays readable")
    func snapshotAndChunks() throws {
        let datastore = try TemporaryStore().datastore()
        let revision = DocumentRevision(docId: "log")
        revision.body = ["entries": []]
        var current = try datastore.createDocumentFromRevision(revision)
        var written = [(revId: current.revId!, sequence: current.sequence, body: current.body)]
        var snapshots: Set<Int64> = []
        for index in 1...60 {
            current.body["entries"] = .list((0..<index).map { .string("entry \($0)") })
            current = try datastore.updateDocumentFromRevision(current)
            written.append((current.revId!, current.sequence, current.body))
            let stored = try storedBytes(datastore, "log")
            #expect(stored.revisions.map(\.generation) == Array(stored.snapshotGeneration...Int64(index + 1)),
                    "bytes from the snapshot's revision to the current one, and none before")
            #expect(stored.revisions.first?.length == stored.snapshotLength)
            #expect(stored.revisions.dropFirst().map(\.length).reduce(0, +) <= stored.snapshotLength)
            snapshots.insert(stored.snapshotGeneration)
        }
        #expect(snapshots.count > 3, "the chunks were folded into new snapshots as the document grew")
        for old in written {
            #expect(try datastore.getDocumentWithId("log", revId: old.revId).body == old.body)
        }
        let history = try datastore.getRevisionHistory(current)
        #expect(history.map(\.revId) == written.reversed().map(\.revId))
        #expect(history.map(\.sequence) == written.reversed().map(\.sequence))
    }

    @Test("a revision whose bytes are lost fails reads of the Automerge document with an error naming the document")
    func lostRevisionBytes() throws {
        let datastore = try TemporaryStore().datastore()
        let revision = DocumentRevision(docId: "victim")
        revision.body = ["n": 0]
        var current = try datastore.createDocumentFromRevision(revision)
        current.body["n"] = 1
        current = try datastore.updateDocumentFromRevision(current)
        let other = DocumentRevision(docId: "other")
        other.body = ["n": 2]
        try datastore.createDocumentFromRevision(other)
        try datastore.database.write { db in
            try db.execute(sql: "UPDATE revisions SET bytes = NULL WHERE docId = 'victim' AND generation = 2")
        }
        datastore.cache.evictAll()

        #expect(try datastore.getDocumentWithId("victim").body == ["n": 1], "the stored view still reads")
        guard case .corruptDocument(docId: "victim", let reason)? = storeError({ _ = try current.automergeDocument() }) else {
            Issue.record("not corruptDocument(victim)")
            return
        }
        #expect(reason.contains("revision 2"))
        current.body["n"] = 3
        #expect(storeError { try datastore.updateDocumentFromRevision(current) }.map { "\($0)" }?.contains("victim") == true)
        let read = try datastore.getDocumentWithId("other")
        read.body["n"] = 4
        try datastore.updateDocumentFromRevision(read)
        #expect(try datastore.getDocumentWithId("other").body == ["n": 4])
    }
}

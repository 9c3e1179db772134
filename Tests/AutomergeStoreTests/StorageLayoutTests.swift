import Automerge
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

    @Test("a large document written in small changes takes a new snapshot every 64 revisions, so a load follows at most 64")
    func snapshotEverySixtyFourRevisions() throws {
        let datastore = try TemporaryStore().datastore()
        let revision = DocumentRevision(docId: "big")
        revision.body = ["text": .string(incompressibleText(20_000)), "n": 0]
        var current = try datastore.createDocumentFromRevision(revision)
        var longest = 0
        for index in 1...140 {
            current.body["n"] = .int(Int64(index))
            current = try datastore.updateDocumentFromRevision(current)
            longest = max(longest, try storedBytes(datastore, "big").revisions.count)
        }
        #expect(longest == 64)
        datastore.cache.evictAll()
        #expect(try current.automergeDocument().heads().count == 1)
        #expect(try datastore.getRevisionHistory(current).count == 141)
    }

    @Test("each revision names the document's revision before it; the table has no index by document")
    func revisionChain() throws {
        let datastore = try TemporaryStore().datastore()
        for docId in ["a", "b"] {
            let revision = DocumentRevision(docId: docId)
            revision.body = ["n": 0]
            try datastore.createDocumentFromRevision(revision)
        }
        for n in 1...3 {
            for docId in ["a", "b"] {
                let current = try datastore.getDocumentWithId(docId)
                current.body["n"] = .int(Int64(n))
                try datastore.updateDocumentFromRevision(current)
            }
        }
        let (chain, indexes) = try datastore.database.read { db in
            (try Row.fetchAll(db, sql: "SELECT sequence, previous FROM revisions WHERE docId = 'a' ORDER BY generation")
                .map { [$0["sequence"] as Int64, $0["previous"] as Int64? ?? 0] },
             try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'revisions'"))
        }
        #expect(chain == [[1, 0], [3, 1], [5, 3], [7, 5]])
        #expect(indexes.isEmpty)
    }

    @Test("a broken revision chain (a missing row, another document's row, a loop) fails the document's Automerge reads with corruptDocument, and ends")
    func brokenChain() throws {
        for damage in ["UPDATE revisions SET previous = 999 WHERE docId = 'victim' AND generation = 3",
                       "UPDATE revisions SET previous = (SELECT sequence FROM revisions WHERE docId = 'other') WHERE docId = 'victim' AND generation = 3",
                       "UPDATE revisions SET previous = sequence WHERE docId = 'victim' AND generation = 3"]
        {
            let datastore = try TemporaryStore().datastore()
            let revision = DocumentRevision(docId: "victim")
            revision.body = ["text": .string(incompressibleText(5_000)), "n": 0]
            var current = try datastore.createDocumentFromRevision(revision)
            for n in 1...2 {
                current.body["n"] = .int(Int64(n))
                current = try datastore.updateDocumentFromRevision(current)
            }
            let other = DocumentRevision(docId: "other")
            other.body = ["n": 0]
            try datastore.createDocumentFromRevision(other)
            try datastore.database.write { db in try db.execute(sql: damage) }
            datastore.cache.evictAll()

            #expect(try datastore.getDocumentWithId("victim").body["n"] == 2, "the stored view still reads")
            current.body["n"] = 3
            guard case .corruptDocument(docId: "victim", _)? = storeError({ try datastore.updateDocumentFromRevision(current) })
            else {
                Issue.record("not corruptDocument(victim) after \(damage)")
                continue
            }
            #expect(storeError { _ = try datastore.getRevisionHistory(current) } != nil)
            #expect(try datastore.getDocumentWithId("other").body == ["n": 0])
        }
    }

    @Test("a revision id is its generation and the first 16 bytes of the SHA-256 of its sorted heads end to end, as revisions.heads stores them")
    func revisionIdsFromHeads() throws {
        let hex = ["a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf",
                   "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
                   String(repeating: "ff", count: 31) + "00"]
        let heads = Set(hex.map { ChangeHash(hexString: $0)! })
        // Computed apart from this code base (Python's hashlib over the sorted bytes).
        #expect(RevisionId.make(heads: heads, generation: 3) == "3-bb9c25a915f2610a3d04488f768c2115")
        #expect(ChangeHash.encode(heads) == Data(hex.sorted().flatMap { ChangeHash(hexString: $0)!.bytes }))
        #expect(ChangeHash.decode(ChangeHash.encode(heads)) == heads)

        let datastore = try TemporaryStore().datastore()
        let base = Document()
        try base.put(obj: .ROOT, key: "n", value: .Int(0))
        let fork = base.fork()
        try base.put(obj: .ROOT, key: "n", value: .Int(1))
        try fork.put(obj: .ROOT, key: "n", value: .Int(2))
        try base.merge(other: fork)
        try datastore.storeAutomergeDocument(base, docId: "forked")
        let (revId, stored) = try datastore.database.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT revId, heads FROM revisions WHERE docId = ?", arguments: ["forked"])!
            return (row["revId"] as String, row["heads"] as Data)
        }
        #expect(stored == Data(base.heads().sorted().flatMap(\.bytes)))
        #expect(revId == RevisionId.make(heads: base.heads(), generation: 3))
    }
}

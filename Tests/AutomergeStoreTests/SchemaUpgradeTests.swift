import Automerge
import Foundation
import GRDB
import Testing
@testable import AutomergeStore

/// Datastores written by earlier schemas open and keep working.
@Suite("Datastore: schema upgrades")
struct SchemaUpgradeTests {
    @Test("get, find, list and update a row without a stored view (before v3)")
    func rowsWithoutView() throws {
        let store = try TemporaryStore()
        let datastore = try store.datastore()
        let revision = DocumentRevision(docId: "old")
        revision.body = ["name": "mike", "age": 12]
        try datastore.createDocumentFromRevision(revision)
        try datastore.database.write { db in try db.execute(sql: "UPDATE documents SET body = NULL") }

        let read = try datastore.getDocumentWithId("old")
        #expect(read.body == ["name": "mike", "age": 12])
        #expect(try datastore.getAllDocuments().map(\.docId) == ["old"])
        try datastore.ensureIndexed(fields: ["age"], name: "ages")
        #expect(try datastore.find(["age": ["$gte": 12]]).map(\.docId) == ["old"])
        read.body["age"] = 13
        try datastore.updateDocumentFromRevision(read)
        let stored = try datastore.database.read { db in try Data.fetchOne(db, sql: "SELECT body FROM documents") }
        #expect(stored != nil, "the next write stores a view")
        #expect(try datastore.getDocumentWithId("old").body == ["name": "mike", "age": 13])
    }

    /// A v3 datastore as v3 wrote it: document `a` written three times
    /// (its snapshot the first change, then two appended chunks), `b` once
    /// and without a stored view, their writes interleaved.
    private func writeVersion3Datastore(at folder: URL) throws -> (a: [String], b: String) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: folder.appendingPathComponent("datastore.sqlite").path)
        try StoreSchema.migrator.migrate(queue, upTo: "v3")
        let a = Document(), b = Document()
        var aBytes: [Data] = [], aRevisions: [(revId: String, heads: Set<ChangeHash>)] = []
        for (generation, title) in ["first", "second", "third"].enumerated() {
            let before = a.heads()
            try a.put(obj: .ROOT, key: "title", value: .String(title))
            a.commitWith(timestamp: Date(timeIntervalSince1970: 1_700_000_000))
            aBytes.append(try a.encodeChangesSince(heads: before))
            aRevisions.append((RevisionId.make(heads: a.heads(), generation: generation + 1), a.heads()))
        }
        try b.put(obj: .ROOT, key: "count", value: .Int(7))
        b.commitWith(timestamp: Date(timeIntervalSince1970: 1_700_000_000))
        let bRevId = RevisionId.make(heads: b.heads(), generation: 1)
        try queue.write { db in
            let insertRevision = "INSERT INTO revisions (docId, revId, generation, deleted, heads) VALUES (?, ?, ?, 0, ?)"
            try db.execute(sql: insertRevision, arguments: ["a", aRevisions[0].revId, 1, ChangeHash.encode(aRevisions[0].heads)])
            try db.execute(sql: insertRevision, arguments: ["b", bRevId, 1, ChangeHash.encode(b.heads())])
            try db.execute(sql: insertRevision, arguments: ["a", aRevisions[1].revId, 2, ChangeHash.encode(aRevisions[1].heads)])
            try db.execute(sql: insertRevision, arguments: ["a", aRevisions[2].revId, 3, ChangeHash.encode(aRevisions[2].heads)])
            try db.execute(sql: """
                INSERT INTO documents (docId, revId, generation, deleted, conflicted, sequence, snapshot, chunkBytes, body)
                VALUES ('a', ?, 3, 0, 0, 4, ?, ?, ?), ('b', ?, 1, 0, 0, 2, ?, 0, NULL)
                """, arguments: [aRevisions[2].revId, aBytes[0], aBytes[1].count + aBytes[2].count,
                                 try StoredView(of: a).stored, bRevId, b.save()])
            for position in 1...2 {
                try db.execute(sql: "INSERT INTO document_chunks (docId, position, bytes) VALUES ('a', ?, ?)",
                               arguments: [position, aBytes[position]])
            }
        }
        return (aRevisions.map(\.revId), bRevId)
    }

    @Test("a v3 datastore opens with the current schema: bodies, old revisions, history and sequences carry over, and writes go on")
    func version3Datastore() throws {
        let store = try TemporaryStore()
        let revIds = try writeVersion3Datastore(at: store.directory.appendingPathComponent("old"))
        let datastore = try store.datastore("old")

        let current = try datastore.getDocumentWithId("a")
        #expect(current.revId == revIds.a[2])
        #expect(current.sequence == 4)
        #expect(current.body == ["title": "third"])
        #expect(try datastore.getDocumentWithId("a", revId: revIds.a[0]).body == ["title": "first"])
        #expect(try datastore.getRevisionHistory(current).map(\.revId) == revIds.a.reversed())
        #expect(try datastore.getRevisionHistory(current).map(\.sequence) == [4, 3, 1])
        #expect(try datastore.getDocumentWithId("b").body == ["count": 7])
        #expect(try current.automergeDocument().heads().count == 1, "the Automerge bytes load")

        current.body["title"] = "fourth"
        let updated = try datastore.updateDocumentFromRevision(current)
        #expect(updated.revId?.hasPrefix("4-") == true)
        #expect(updated.sequence == 5, "sequences continue above every earlier one")
        #expect(try datastore.changes(since: 0).results.map(\.docId) == ["b", "a"])
        #expect(try datastore.getDocumentWithId("a", revId: revIds.a[1]).body == ["title": "second"])
        let tables = try datastore.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        #expect(!tables.contains("document_chunks"))
        let chain = try datastore.database.read { db in
            try Row.fetchAll(db, sql: "SELECT sequence, previous FROM revisions WHERE docId = 'a' ORDER BY generation")
                .map { [$0["sequence"] as Int64, $0["previous"] as Int64? ?? 0] }
        }
        #expect(chain == [[1, 0], [3, 1], [4, 3], [5, 4]], "each revision names the one before it, migrated ones too")
    }
}

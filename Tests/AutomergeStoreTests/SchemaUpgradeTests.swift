import Foundation
import GRDB
import Testing
@testable import AutomergeStore

/// Datastores written before the stored view (schema v3) keep working: rows
/// without a view are read from their Automerge bytes, and their next
/// write stores one.
@Suite("Datastore: rows from before the stored view")
struct SchemaUpgradeTests {
    @Test("get, find, list and update a row without a stored view")
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
}

import Foundation
import Testing
@testable import AutomergeStore

/// The seed cookbook's "Updating a document" and "Deleting a document", and
/// what Automerge adds: merging a stale update instead of failing.
@Suite("Cookbook: updating and deleting documents")
struct CookbookUpdateTests {
    let store: TemporaryStore
    let datastore: Datastore
    let saved: DocumentRevision
    let att1: UnsavedDataAttachment

    init() throws {
        store = try TemporaryStore()
        datastore = try store.datastore()
        let rev = DocumentRevision(docId: "doc1")
        rev.body = ["title": "Buy milk", "completed": false]
        saved = try datastore.createDocumentFromRevision(rev)
        att1 = UnsavedDataAttachment(data: Data("meow".utf8), name: "cute_cat.jpg", type: "image/jpeg")
    }

    @Test("updating the body of a document without attachments keeps it without attachments")
    func updateBody() throws {
        saved.body["completed"] = true
        let updated = try datastore.updateDocumentFromRevision(saved)
        #expect(updated.revId?.hasPrefix("2-") == true)
        #expect(try datastore.getDocumentWithId("doc1").body == ["title": "Buy milk", "completed": true])
        #expect(updated.attachments.isEmpty)
    }

    @Test("updating the body and adding an attachment; then body-only updates keep it")
    func addAttachmentThenKeep() throws {
        saved.body["hello"] = "world"
        saved.attachments[att1.name] = att1
        let updated = try datastore.updateDocumentFromRevision(saved)
        #expect(try updated.attachments["cute_cat.jpg"]?.dataFromAttachmentContent() == Data("meow".utf8))
        updated.body["hello"] = "again"
        let again = try datastore.updateDocumentFromRevision(updated)
        #expect(again.attachments.names == ["cute_cat.jpg"])
        let attachment = try #require(again.attachments["cute_cat.jpg"] as? SavedAttachment)
        #expect(attachment.revpos == 2)
    }

    @Test("removing all attachments with nil or an empty collection")
    func removeAllAttachments() throws {
        saved.attachments = [att1, UnsavedDataAttachment(data: Data([1]), name: "b", type: "x/y")]
        var current = try datastore.updateDocumentFromRevision(saved)
        #expect(current.attachments.count == 2)
        current.attachments = nil
        current = try datastore.updateDocumentFromRevision(current)
        #expect(current.attachments.isEmpty)
        current.attachments = [att1]
        current = try datastore.updateDocumentFromRevision(current)
        current.attachments = []
        current = try datastore.updateDocumentFromRevision(current)
        #expect(try datastore.getDocumentWithId("doc1").attachments.isEmpty)
    }

    @Test("removing one attachment keeps the others")
    func removeOneAttachment() throws {
        saved.attachments = [att1, UnsavedDataAttachment(data: Data([1]), name: "b", type: "x/y")]
        let current = try datastore.updateDocumentFromRevision(saved)
        current.attachments.removeValue(forKey: att1.name)
        #expect(try datastore.updateDocumentFromRevision(current).attachments.names == ["b"])
    }

    @Test("attachments copied from another document are named again, not copied")
    func copyAttachmentsFromAnotherDocument() throws {
        let other = DocumentRevision(docId: "anotherId")
        other.body = [:]
        other.attachments = [att1]
        let anotherDoc = try datastore.createDocumentFromRevision(other)
        saved.attachments = anotherDoc.attachments
        let updated = try datastore.updateDocumentFromRevision(saved)
        #expect(try updated.attachments["cute_cat.jpg"]?.dataFromAttachmentContent() == Data("meow".utf8))
        #expect(try blobCount(datastore) == 1)
    }

    @Test("an update from an outdated revision fails with a conflict and changes nothing")
    func staleUpdate() throws {
        saved.body = ["title": "Buy oat milk"]
        let current = try datastore.updateDocumentFromRevision(saved)
        saved.body = ["title": "Buy bread"]  // saved is the old revision
        #expect(storeError { try datastore.updateDocumentFromRevision(saved) }
            == .conflict(docId: "doc1", currentRevId: current.revId!, givenRevId: saved.revId))
        #expect(try datastore.getDocumentWithId("doc1").body == ["title": "Buy oat milk"])
    }

    @Test("an update that changes nothing returns the current revision and writes nothing")
    func noOpUpdate() throws {
        let again = try datastore.updateDocumentFromRevision(saved)
        #expect(again.revId == saved.revId)
        #expect(try datastore.changes().results.map(\.sequence) == [saved.sequence])
    }

    @Test("a stale update with .merge applies concurrently: other fields merge, a field both set conflicts until resolved")
    func mergedStaleUpdate() throws {
        let fresh = try datastore.getDocumentWithId("doc1")
        fresh.body["completed"] = true
        fresh.body["title"] = "Buy oat milk"
        try datastore.updateDocumentFromRevision(fresh)

        saved.body["title"] = "Buy bread"
        saved.body["note"] = "from the corner shop"
        let merged = try datastore.updateDocumentFromRevision(saved, options: .merge)
        #expect(merged.body["completed"] == true)
        #expect(merged.body["note"] == "from the corner shop")
        #expect(try datastore.getConflictedDocumentIds() == ["doc1"])

        struct PickBread: ConflictResolver {
            func resolve(docId: String, conflicts: [DocumentRevision]) -> DocumentRevision? {
                conflicts.first { $0.body["title"] == "Buy bread" }
            }
        }
        let resolved = try #require(try datastore.resolveConflictsForDocument("doc1", resolver: PickBread()))
        #expect(resolved.body["title"] == "Buy bread")
        #expect(try datastore.getConflictedDocumentIds().isEmpty)
    }

    @Test("a document is deleted from its current revision only; deleteDocumentWithId deletes whatever it is at")
    func delete() throws {
        saved.body["completed"] = true
        let current = try datastore.updateDocumentFromRevision(saved)
        #expect(storeError { try datastore.deleteDocumentFromRevision(saved) }
            == .conflict(docId: "doc1", currentRevId: current.revId!, givenRevId: saved.revId))
        let deleted = try datastore.deleteDocumentFromRevision(current)
        #expect(deleted.deleted)
        #expect(try datastore.documentCount == 0)
        #expect(try datastore.getAllDocuments().isEmpty)
        #expect(try datastore.getDocumentWithId("doc1").deleted)
        #expect(storeError { try datastore.updateDocumentFromRevision(deleted) } == .documentDeleted(docId: "doc1"))

        let other = DocumentRevision(docId: "doc2")
        other.body = ["x": 1]
        try datastore.createDocumentFromRevision(other)
        #expect(try datastore.deleteDocumentWithId("doc2").deleted)
    }

    @Test("old revisions stay readable, and the history lists them newest first")
    func revisionHistory() throws {
        saved.body["completed"] = true
        let second = try datastore.updateDocumentFromRevision(saved)
        second.body["title"] = "Buy bread"
        let third = try datastore.updateDocumentFromRevision(second)
        #expect(try datastore.getDocumentWithId("doc1", revId: saved.revId!).body == ["title": "Buy milk", "completed": false])
        let history = try datastore.getRevisionHistory(third)
        #expect(history.map(\.revId) == [third.revId, second.revId, saved.revId])
        #expect(storeError { _ = try datastore.getDocumentWithId("doc1", revId: "9-00000000000000000000000000000000") }
            == .documentNotFound(docId: "doc1", revId: "9-00000000000000000000000000000000"))
    }

    @Test("the changes feed lists each document once at its latest write; the stream sees writes as they commit")
    func changesFeed() async throws {
        let events = datastore.changeEvents()
        saved.body["completed"] = true
        let updated = try datastore.updateDocumentFromRevision(saved)
        let other = DocumentRevision(docId: "doc2")
        other.body = [:]
        let created = try datastore.createDocumentFromRevision(other)
        let page = try datastore.changes(since: 0)
        #expect(page.results.map(\.docId) == ["doc1", "doc2"])
        #expect(page.results.map(\.kind) == [.updated, .created])
        #expect(try datastore.changes(since: updated.sequence).results.map(\.revId) == [created.revId])
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next()?.revId == updated.revId)
        #expect(await iterator.next()?.kind == .created)
    }

    @Test("concurrent writers from the same revision: exactly one succeeds, the others get the conflict")
    func concurrentWriters() async throws {
        let datastore = self.datastore
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                group.addTask {
                    guard let rev = try? datastore.getDocumentWithId("doc1", revId: self.saved.revId!) else { return false }
                    rev.body["writer"] = .int(Int64(index))
                    return (try? datastore.updateDocumentFromRevision(rev)) != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 1)
        #expect(try datastore.getDocumentWithId("doc1").revId?.hasPrefix("2-") == true)
    }

    @Test("paging through all documents by id")
    func paging() throws {
        for index in 0..<9 {
            let rev = DocumentRevision(docId: "page\(index)")
            rev.body = ["n": .int(Int64(index))]
            try datastore.createDocumentFromRevision(rev)
        }
        let ids = try datastore.getAllDocuments(offset: 2, limit: 3, descending: false).map(\.docId)
        #expect(ids == ["page1", "page2", "page3"])
        #expect(try datastore.getAllDocuments(offset: 0, limit: 2, descending: true).map(\.docId) == ["page8", "page7"])
        #expect(try datastore.getDocumentsWithIds(["page3", "missing", "doc1"]).map(\.docId) == ["page3", "doc1"])
        #expect(try datastore.documentCount == 10)
    }
}

import Foundation
import Testing
@testable import AutomergeStore

/// The seed's "Datastore and DatastoreManager" section and its cookbook's
/// "Creating a new document" and "Creating a document by copying data".
@Suite("Cookbook: managers and creating documents")
struct CookbookCreateTests {
    @Test("datastoreNamed returns the same open datastore for a name, from any thread, a thousand times")
    func sameInstance() async throws {
        let store = try TemporaryStore()
        let first = try store.datastore()
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<1000 {
                group.addTask { try store.manager.datastoreNamed("my_datastore") === first }
            }
            for try await same in group { #expect(same) }
        }
        #expect(try store.datastore("other_datastore") !== first)
        #expect(store.manager.allDatastores() == ["my_datastore", "other_datastore"])
    }

    @Test("names must match ^[a-zA-Z]+[a-zA-Z0-9_]*", arguments: ["", "1abc", "_x", "a-b", "a b", "é"])
    func invalidNames(_ name: String) throws {
        let store = try TemporaryStore()
        #expect(storeError { _ = try store.manager.datastoreNamed(name) } == .invalidDatastoreName(name))
    }

    @Test("deleting a datastore removes its documents; the name can be used again, empty")
    func deleteDatastore() throws {
        let store = try TemporaryStore()
        let rev = DocumentRevision(docId: "doc1")
        rev.body = ["a": 1]
        try store.datastore().createDocumentFromRevision(rev)
        try store.manager.deleteDatastoreNamed("my_datastore")
        #expect(store.manager.allDatastores().isEmpty)
        #expect(try store.datastore().documentCount == 0)
    }

    @Test("a document with a body and no id gets a generated id")
    func generatedId() throws {
        let store = try TemporaryStore()
        let datastore = try store.datastore()
        let rev = DocumentRevision()
        rev.body = ["description": "Buy milk", "completed": false, "type": "com.cloudant.sync.example.task"]
        let saved = try datastore.createDocumentFromRevision(rev)
        let docId = try #require(saved.docId)
        #expect(docId.count == 32)
        #expect(saved.revId?.hasPrefix("1-") == true)
        #expect(try datastore.getDocumentWithId(docId).body == rev.body)
    }

    @Test("a document with a body and an id keeps the id; retrieving it gives the body back")
    func givenId() throws {
        let store = try TemporaryStore()
        let datastore = try store.datastore()
        let rev = DocumentRevision(docId: "doc1")
        rev.body = ["description": "Buy milk", "completed": false, "tags": ["home", 2, 2.5, nil, ["nested": true]]]
        let saved = try datastore.createDocumentFromRevision(rev)
        let retrieved = try datastore.getDocumentWithId("doc1")
        #expect(saved.docId == "doc1")
        #expect(retrieved.revId == saved.revId)
        #expect(retrieved.body == rev.body)
        #expect(!retrieved.deleted)
        #expect(retrieved.attachments.isEmpty)
    }

    @Test("a document with attachments, with or without an id")
    func withAttachments() throws {
        let store = try TemporaryStore()
        let datastore = try store.datastore()
        for docId in ["doc1", nil] {
            let rev = DocumentRevision(docId: docId)
            rev.body = ["hello": "world"]
            let att1 = UnsavedFileAttachment(path: try store.file("image", [1, 2, 3]), name: "filename", type: "image/jpeg")
            rev.attachments = [att1.name: att1]
            let saved = try datastore.createDocumentFromRevision(rev)
            let attachment = try #require(try datastore.getDocumentWithId(saved.docId!).attachments["filename"])
            #expect(attachment.type == "image/jpeg")
            #expect(try attachment.dataFromAttachmentContent() == Data([1, 2, 3]))
        }
    }

    @Test("a document cannot be created without a body")
    func bodyRequired() throws {
        let store = try TemporaryStore()
        let datastore = try store.datastore()
        #expect(storeError { try datastore.createDocumentFromRevision(DocumentRevision(docId: "doc1")) } == .bodyRequired)
        #expect(try datastore.documentCount == 0)
    }

    @Test("bodies are maps without reserved top-level keys and with finite numbers")
    func invalidBodies() throws {
        let store = try TemporaryStore()
        let datastore = try store.datastore()
        for body: BodyValue in [[1, 2], "text", ["_id": "x"], ["x": .double(.nan)]] {
            let rev = DocumentRevision(docId: "doc1")
            rev.body = body
            guard case .invalidBody? = storeError({ try datastore.createDocumentFromRevision(rev) }) else {
                Issue.record("\(body) was accepted")
                continue
            }
        }
        #expect(try datastore.documentCount == 0)
    }

    @Test("a body nested deeper than Automerge allows is refused, however deep, without recursing")
    func deepBodies() throws {
        let datastore = try TemporaryStore().datastore()
        var atLimit: BodyValue = 1
        for _ in 0..<StoredLayout.maximumDepth - 1 { atLimit = [atLimit] }
        let accepted = DocumentRevision(docId: "deep")
        accepted.body = ["x": atLimit]
        #expect(try datastore.createDocumentFromRevision(accepted).body == ["x": atLimit])
        var tooDeep: BodyValue = ["leaf": 1]
        for _ in 0..<200_000 { tooDeep = ["k": tooDeep] }
        let refused = DocumentRevision(docId: "deeper")
        refused.body = tooDeep
        #expect(storeError { try datastore.createDocumentFromRevision(refused) }
                == .invalidBody("nested deeper than \(StoredLayout.maximumDepth) levels"))
        // Free the value level by level: dropping it whole would recurse once per level.
        refused.body = [:]
        while case .map(let entries) = tooDeep, let inner = entries["k"] { tooDeep = inner }
    }

    /// "doc1": body `["a": 1]`, one attachment "keep" holding the byte 9.
    static func createDocumentWithAttachment(in datastore: Datastore) throws -> DocumentRevision {
        let original = DocumentRevision(docId: "doc1")
        original.body = ["a": 1]
        original.attachments = [UnsavedDataAttachment(data: Data([9]), name: "keep", type: "text/plain")]
        return try datastore.createDocumentFromRevision(original)
    }

    @Test("copying a document's body and attachments into a new document, changing one of each")
    func copyWithAttachments() throws {
        let store = try TemporaryStore()
        let datastore = try store.datastore()
        let saved = try Self.createDocumentWithAttachment(in: datastore)

        let rev = DocumentRevision(docId: "doc2")
        rev.body = saved.body
        rev.body["hello"] = "world"
        rev.attachments = saved.attachments
        let att100 = UnsavedDataAttachment(data: Data([1, 0, 0]), name: "att100", type: "application/octet-stream")
        rev.attachments[att100.name] = att100
        try datastore.createDocumentFromRevision(rev)

        let copy = try datastore.getDocumentWithId("doc2")
        #expect(copy.body == ["a": 1, "hello": "world"])
        #expect(copy.attachments.names == ["att100", "keep"])
        #expect(try copy.attachments["keep"]?.dataFromAttachmentContent() == Data([9]))
        #expect(try datastore.getDocumentWithId("doc1").body == ["a": 1])
        // The kept attachment's bytes are stored once.
        #expect(try blobCount(datastore) == 2)
    }

    @Test("copying only the body leaves the attachments behind")
    func copyBodyOnly() throws {
        let store = try TemporaryStore()
        let datastore = try store.datastore()
        let saved = try Self.createDocumentWithAttachment(in: datastore)
        let rev = DocumentRevision(docId: "doc2")
        rev.body = saved.body
        rev.body["hello"] = "world"
        try datastore.createDocumentFromRevision(rev)
        #expect(try datastore.getDocumentWithId("doc2").attachments.isEmpty)
    }

    @Test("an id already in the datastore fails; the same id in another datastore succeeds")
    func duplicateId() throws {
        let store = try TemporaryStore()
        let datastore = try store.datastore()
        let first = DocumentRevision(docId: "doc1")
        first.body = ["a": 1]
        try datastore.createDocumentFromRevision(first)
        let rev = DocumentRevision(docId: "doc1")
        rev.body["hello"] = "world"
        #expect(storeError { try datastore.createDocumentFromRevision(rev) } == .documentExists(docId: "doc1"))
        #expect(try datastore.getDocumentWithId("doc1").body == ["a": 1])
        let other = try store.datastore("other_datastore")
        #expect(try other.createDocumentFromRevision(rev).docId == "doc1")
    }
}

import Automerge
import Foundation
import Testing
@testable import AutomergeStore

/// Documents as Codable models and as Automerge documents: text stays text,
/// counters stay counters, and every write is a revision like any other.
@Suite("Datastore: Codable models and Automerge documents")
struct AutomergeDocumentTests {
    struct Note: Codable {
        var title: String
        var text: AutomergeText
        var views: Counter
        var tags: [String]
    }

    @Test("a Codable model is created, read as a body, decoded, and updated with the fewest ops")
    func codableModels() throws {
        let datastore = try TemporaryStore().datastore()
        let note = Note(title: "Plan", text: AutomergeText("Buy milk"), views: Counter(2), tags: ["home"])
        let created = try datastore.createDocument(from: note, docId: "note",
            attachments: [UnsavedDataAttachment(data: Data("x".utf8), name: "a.txt", type: "text/plain")])
        #expect(created.body == ["title": "Plan", "text": "Buy milk", "views": 2, "tags": ["home"]])
        #expect(created.attachments.names == ["a.txt"])

        let decoded = try datastore.getDocumentWithId("note").decodeBody(as: Note.self)
        #expect(decoded.title == "Plan" && decoded.text.value == "Buy milk" && decoded.views.value == 2)

        let unchanged = try datastore.updateDocumentFromRevision(created, with: decoded)
        #expect(unchanged.revId == created.revId, "re-encoding an unchanged model writes nothing")

        var edited = decoded
        edited.title = "Plan B"
        edited.tags.append("work")
        let updated = try datastore.updateDocumentFromRevision(created, with: edited)
        #expect(updated.revId?.hasPrefix("2-") == true)
        #expect(updated.body == ["title": "Plan B", "text": "Buy milk", "views": 2, "tags": ["home", "work"]])
        #expect(updated.attachments.names == ["a.txt"], "a model update keeps the attachments")
        #expect(try datastore.getRevisionHistory(updated).count == 2)
        edited.text.value = "Buy oat milk"    // bound to the decoded copy; stored by the next update
        let textEdit = try datastore.updateDocumentFromRevision(updated, with: edited)
        #expect(textEdit.body["text"] == "Buy oat milk")
        let document = try textEdit.automergeDocument()
        guard case .Object(_, .Text)? = try document.get(obj: .ROOT, key: "text"),
            case .Scalar(.Counter(2))? = try document.get(obj: .ROOT, key: "views")
        else {
            Issue.record("text and counter are not stored as Automerge text and counter")
            return
        }
    }

    @Test("rich edits through the Automerge document: splices, marks and increments become a revision; body updates keep them")
    func richEdits() throws {
        let datastore = try TemporaryStore().datastore()
        let created = try datastore.createDocument(from: Note(title: "T", text: AutomergeText("hello world"),
                                                              views: Counter(0), tags: []), docId: "n")
        let edited = try datastore.updateDocumentFromRevision(created) { document in
            guard case .Object(let text, .Text)? = try document.get(obj: .ROOT, key: "text") else { return }
            try document.spliceText(obj: text, start: 5, delete: 0, value: ",")
            try document.mark(obj: text, start: 0, end: 5, expand: .none, name: "bold", value: .Boolean(true))
            try document.increment(obj: .ROOT, key: "views", by: 3)
        }
        #expect(edited.body["text"] == "hello, world" && edited.body["views"] == 3)
        #expect(edited.sequence > created.sequence)

        edited.body["title"] = "Greeting"
        let bodyUpdate = try datastore.updateDocumentFromRevision(edited)
        let document = try bodyUpdate.automergeDocument()
        guard case .Object(let text, .Text)? = try document.get(obj: .ROOT, key: "text") else {
            Issue.record("a body update replaced the text object")
            return
        }
        #expect(try document.marks(obj: text).map(\.name) == ["bold"], "marks survive a body-only update")
        #expect(bodyUpdate.body["title"] == "Greeting")

        let noop = try datastore.updateDocumentFromRevision(bodyUpdate) { _ in }
        #expect(noop.revId == bodyUpdate.revId, "an edit that changes nothing writes nothing")
    }

    @Test("counters merge: increments from the same revision, by edit or by body, add up")
    func countersMerge() throws {
        let datastore = try TemporaryStore().datastore()
        let base = try datastore.createDocument(from: Note(title: "", text: AutomergeText(""), views: Counter(10), tags: []),
                                                docId: "c")
        try datastore.updateDocumentFromRevision(base, options: .merge) { document in
            try document.increment(obj: .ROOT, key: "views", by: 5)
        }
        let stale = try datastore.getDocumentWithId("c", revId: base.revId!)
        stale.body["views"] = 12
        let merged = try datastore.updateDocumentFromRevision(stale, options: .merge)
        #expect(merged.body["views"] == 17, "10 + 5 + 2")
        #expect(try datastore.getConflictedDocumentIds().isEmpty)
    }

    @Test("the store's '_' keys are out of reach: an edit or model that touches them fails and changes nothing")
    func reservedKeys() throws {
        let datastore = try TemporaryStore().datastore()
        let created = try datastore.createDocument(from: ["a": 1], docId: "r")
        #expect(storeError {
            try datastore.updateDocumentFromRevision(created) { try $0.put(obj: .ROOT, key: "_deleted", value: .Boolean(true)) }
        } == .invalidBody("an edit changed the store's top-level '_' keys"))
        if case .invalidBody? = storeError({ try datastore.updateDocumentFromRevision(created, with: ["_secret": 1]) }) {
        } else {
            Issue.record("a model writing a reserved key was stored")
        }
        if case .invalidBody? = storeError({ try datastore.createDocument(from: [1, 2, 3]) }) {
        } else {
            Issue.record("a model that is not a map was stored")
        }
        let current = try datastore.getDocumentWithId("r")
        #expect(current.revId == created.revId && !current.deleted && current.body == ["a": 1])
        #expect(try datastore.documentCount == 1)
    }

    @Test("a revision never saved has no Automerge document")
    func unsavedRevision() {
        #expect(storeError { _ = try DocumentRevision(docId: "x").automergeDocument() }
                == .documentNotFound(docId: "x", revId: "(not saved)"))
    }
}

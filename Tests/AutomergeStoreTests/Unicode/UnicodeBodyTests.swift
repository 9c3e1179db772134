import AutomergeConformance
import Foundation
import Testing
@testable import AutomergeStore

/// Keys, values, attachment names and ids that differ only in Unicode
/// normalization are different data, as they are to JSON, Automerge and
/// CouchDB: the store keeps each, never merging one into the other.
@Suite("Unicode: bodies, attachments and ids keep strings that differ only in normalization apart")
struct UnicodeBodyTests {
    let composed = Normalization.composed
    let decomposed = Normalization.decomposed
    let codePoints = Normalization.codePoints

    @Test("StrictJSON keeps object keys that differ only in normalization, and tells such strings apart")
    func strictJSONKeepsBothKeys() throws {
        let json = try JSONParser.parse(#"{"\u00e9":1,"e\u0301":2,"a":4}"#)
        guard case .object(let members) = json else { Issue.record("not an object: \(json)"); return }
        #expect(members.count == 3)
        #expect(throws: JSONParser.Failure.self, "the same key written twice is refused, not one of its values dropped") {
            try JSONParser.parse(#"{"a":3,"a":4}"#)
        }
        #expect(members[composed] == .number("1") && members[decomposed] == .number("2"))
        #expect(members["a"] == .number("4"))
        #expect(Array(json.serialized.utf8) == Array(#"{"a":4,"e\#u{301}":2,"\#u{E9}":1}"#.utf8), "keys in code point order")
        #expect(try JSONParser.parse(json.serialized) == json)
        #expect(JSONValue.string(composed) != .string(decomposed))
    }

    @Test("a document created with keys that differ only in normalization keeps both, and reads back both values")
    func createKeepsBothKeys() throws {
        let datastore = try TemporaryStore().datastore()
        let body = try BodyJSON.decode(Data(#"{"\u00e9":1,"e\u0301":2,"m":{"\u00e9":3,"e\u0301":4}}"#.utf8))
        #expect(body.mapValue?.count == 3)
        try Normalization.create("doc", body, in: datastore)
        let read = try datastore.getDocumentWithId("doc")
        #expect(read.body[composed] == 1 && read.body[decomposed] == 2)
        #expect(read.body["m"]?[composed] == 3 && read.body["m"]?[decomposed] == 4)
        #expect(read.body == body)
        let document = try read.automergeDocument()
        #expect(document.keys(obj: .ROOT).map(codePoints) == ["U+0065 U+0301", "U+006D", "U+00E9"])
    }

    @Test("an update that changes only a string's normalization is a change, in a field and in a list")
    func normalizationChangeIsAnUpdate() throws {
        let datastore = try TemporaryStore().datastore()
        let created = try Normalization.create("doc", ["name": .string(composed), "tags": [.string(composed)]], in: datastore)
        created.body = ["name": .string(decomposed), "tags": [.string(decomposed)]]
        let updated = try datastore.updateDocumentFromRevision(created)
        #expect(updated.revId != created.revId)
        let read = try datastore.getDocumentWithId("doc")
        #expect(codePoints(read.body["name"]?.stringValue) == "U+0065 U+0301")
        #expect(codePoints(read.body["tags"]?[0]?.stringValue) == "U+0065 U+0301")
    }

    @Test("an update that drops one of two keys differing only in normalization drops only that one")
    func updateDropsOnlyTheNamedKey() throws {
        let datastore = try TemporaryStore().datastore()
        let created = try Normalization.create("doc", [ExactString(composed): 1, ExactString(decomposed): 2], in: datastore)
        created.body = [ExactString(decomposed): 2]
        try datastore.updateDocumentFromRevision(created)
        let read = try datastore.getDocumentWithId("doc")
        #expect(read.body == [ExactString(decomposed): 2])
        #expect(try read.automergeDocument().keys(obj: .ROOT).map(codePoints) == ["U+0065 U+0301"])
    }

    @Test("attachments whose names differ only in normalization are two attachments, each with its bytes")
    func attachmentNamesStayApart() throws {
        let datastore = try TemporaryStore().datastore()
        let revision = DocumentRevision(docId: "doc")
        revision.body = [:]
        revision.attachments[composed] = UnsavedDataAttachment(data: Data("composed".utf8), name: composed, type: "text/plain")
        revision.attachments[decomposed] = UnsavedDataAttachment(data: Data("decomposed".utf8), name: decomposed, type: "text/plain")
        try datastore.createDocumentFromRevision(revision)
        let read = try datastore.getDocumentWithId("doc")
        #expect(read.attachments.names.map(codePoints) == ["U+0065 U+0301", "U+00E9"])
        #expect(try read.attachments[composed]?.dataFromAttachmentContent() == Data("composed".utf8))
        #expect(try read.attachments[decomposed]?.dataFromAttachmentContent() == Data("decomposed".utf8))
    }

    @Test("a key or id is reserved when its first scalar is '_', a combining mark after it included")
    func reservedByFirstScalar() throws {
        let datastore = try TemporaryStore().datastore()
        #expect(storeError { try Normalization.create("doc", ["_\u{301}x": 1], in: datastore) }
            == .invalidBody("top-level keys starting with '_' are reserved: '_\u{301}x'"))
        #expect(storeError { try Normalization.create("_\u{301}x", ["a": 1], in: datastore) } == .invalidDocumentId("_\u{301}x"))
        #expect(try datastore.changes().results.isEmpty)
    }
}

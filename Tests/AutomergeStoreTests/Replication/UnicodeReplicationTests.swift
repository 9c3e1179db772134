import Foundation
import Testing
@testable import AutomergeStore

/// Replication carries documents, keys and attachment names that differ
/// only in Unicode normalization as the different data they are.
@Suite("Replication: ids, keys and names that differ only in normalization stay apart")
struct UnicodeReplicationTests {
    static let composed = Normalization.composed
    static let decomposed = Normalization.decomposed

    /// Documents `é` and `e\u{301}`, and `keys` holding both keys and both attachments.
    static func source() throws -> (store: TemporaryStore, a: Datastore) {
        let store = try TemporaryStore()
        let a = try store.datastore("a")
        try Normalization.create(composed, ["n": 1], in: a)
        try Normalization.create(decomposed, ["n": 2], in: a)
        let keys = DocumentRevision(docId: "keys")
        keys.body = [ExactString(composed): 1, ExactString(decomposed): 2]
        for name in [composed, decomposed] {
            keys.attachments[name] = UnsavedDataAttachment(data: Data(Normalization.codePoints(name).utf8), name: name,
                                                           type: "text/plain")
        }
        try a.createDocumentFromRevision(keys)
        return (store, a)
    }

    @Test("a replication keeps both documents, both keys and both attachments")
    func replicationKeepsEverything() async throws {
        let (store, a) = try Self.source()
        let b = try store.datastore("b")
        let (pushed, served) = try await replicate(a, with: b, direction: .push)
        #expect(pushed.documentsSent == 3 && served.documentsReceived == 3)
        #expect(try ReplicaSnapshot(a) == ReplicaSnapshot(b))
        #expect(try b.getDocumentWithId(Self.composed).body == ["n": 1])
        #expect(try b.getDocumentWithId(Self.decomposed).body == ["n": 2])
        let keys = try b.getDocumentWithId("keys")
        #expect(keys.body == [ExactString(Self.composed): 1, ExactString(Self.decomposed): 2])
        for name in [Self.composed, Self.decomposed] {
            #expect(try keys.attachments[name]?.dataFromAttachmentContent() == Data(Normalization.codePoints(name).utf8))
        }

        // And back: an edit of one twin on b reaches only that twin on a.
        let edited = try b.getDocumentWithId(Self.decomposed)
        edited.body = ["n": 20]
        try b.updateDocumentFromRevision(edited)
        try await replicate(a, with: b, direction: .pull)
        #expect(try a.getDocumentWithId(Self.composed).body == ["n": 1])
        #expect(try a.getDocumentWithId(Self.decomposed).body == ["n": 20])
    }

    @Test("a pull by document id brings only the document with those scalars")
    func pullByExactId() async throws {
        let (store, a) = try Self.source()
        let b = try store.datastore("b")
        try await replicate(b, with: a, direction: .pull, pullDocumentIds: [Self.decomposed])
        #expect(try Normalization.ids(b.getAllDocuments()) == ["U+0065 U+0301"])
    }
}

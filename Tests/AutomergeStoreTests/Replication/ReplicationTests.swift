import Foundation
import Testing
@testable import AutomergeStore

@Suite("Replication: pull, push and both ways between datastores")
struct ReplicationTests {
    @Test("a push copies every document, its revision id, body, deletion and attachments")
    func pushCopiesEverything() async throws {
        let store = try TemporaryStore()
        let a = try store.datastore("a"), b = try store.datastore("b")
        for index in 0..<20 {
            let rev = DocumentRevision(docId: "doc\(index)")
            rev.body = ["index": .int(Int64(index)), "name": .string("n\(index)")]
            if index % 5 == 0 {
                rev.attachments["photo"] = UnsavedDataAttachment(data: Data("bytes \(index)".utf8), name: "photo", type: "image/png")
            }
            try a.createDocumentFromRevision(rev)
        }
        let updated = try a.getDocumentWithId("doc3")
        updated.body = ["index": 3, "name": "changed"]
        try a.updateDocumentFromRevision(updated)
        try a.deleteDocumentWithId("doc4")

        let (pushed, served) = try await replicate(a, with: b, direction: .push)
        #expect(pushed.completed && served.completed)
        #expect(pushed.documentsSent == 20 && served.documentsReceived == 20)
        #expect(served.attachmentsReceived == 4 && pushed.attachmentsSent == 4)
        #expect(try ReplicaSnapshot(a) == ReplicaSnapshot(b))
        #expect(try b.getDocumentWithId("doc4").deleted)
        #expect(try body(b.getDocumentWithId("doc3")) == ["index": 3, "name": "changed"])
        #expect(try b.getDocumentWithId("doc3").revId == a.getDocumentWithId("doc3").revId)
    }

    @Test("a pull by document ids brings only those; a push filter sends only what it accepts")
    func filters() async throws {
        let store = try TemporaryStore()
        let a = try store.datastore("a"), b = try store.datastore("b"), c = try store.datastore("c")
        for index in 0..<10 {
            let rev = DocumentRevision(docId: "doc\(index)")
            rev.body = ["even": .bool(index % 2 == 0)]
            try a.createDocumentFromRevision(rev)
        }
        try await replicate(b, with: a, direction: .pull, pullDocumentIds: ["doc1", "doc2", "missing"])
        #expect(try b.getAllDocuments().map(\.docId) == ["doc1", "doc2"])
        try await replicate(a, with: c, direction: .push, pushFilter: { $0.body["even"] == .bool(true) })
        #expect(try c.getAllDocuments().map(\.docId) == ["doc0", "doc2", "doc4", "doc6", "doc8"])
    }

    @Test("both ways: concurrent edits of one document merge, and both sides name the same revision")
    func concurrentEditsMerge() async throws {
        let store = try TemporaryStore()
        let a = try store.datastore("a"), b = try store.datastore("b")
        let rev = DocumentRevision(docId: "shared")
        rev.body = ["title": "draft", "tags": ["x"]]
        try a.createDocumentFromRevision(rev)
        try await replicate(a, with: b)
        let onA = try a.getDocumentWithId("shared"), onB = try b.getDocumentWithId("shared")
        onA.body["title"] = "from a"
        onB.body["count"] = 7
        try a.updateDocumentFromRevision(onA)
        try b.updateDocumentFromRevision(onB)
        try await replicate(a, with: b)
        #expect(try body(a.getDocumentWithId("shared")) == ["title": "from a", "tags": ["x"], "count": 7])
        #expect(try ReplicaSnapshot(a) == ReplicaSnapshot(b))
        #expect(try a.getDocumentWithId("shared").revId?.hasPrefix("3-") == true)  // three changes: the create and one update each
    }

    @Test("only what changed is exchanged: one changed document of many is the only one touched")
    func onlyChangedDocuments() async throws {
        let store = try TemporaryStore()
        let a = try store.datastore("a"), b = try store.datastore("b")
        try a.createDocumentsFromRevisions((0..<300).map { index in
            let rev = DocumentRevision(docId: "doc\(index)")
            rev.body = ["index": .int(Int64(index))]
            return rev
        })
        let first = try await replicate(a, with: b)
        #expect(first.local.changesTotal >= 300)
        let again = try await replicate(a, with: b)
        #expect(again.local.changesTotal == 0 && again.remote.changesTotal == 0)
        let rev = try a.getDocumentWithId("doc7")
        rev.body["index"] = 700
        try a.updateDocumentFromRevision(rev)
        let one = try await replicate(a, with: b)
        #expect(one.local.changesTotal == 1 && one.local.documentsSent == 1 && one.remote.documentsReceived == 1)
        #expect(one.local.bytesSent < first.local.bytesSent / 50)
        #expect(try ReplicaSnapshot(a) == ReplicaSnapshot(b))
    }

    @Test("attachment bytes travel only to a peer that lacks them")
    func attachmentsByDigest() async throws {
        let store = try TemporaryStore()
        let a = try store.datastore("a"), b = try store.datastore("b")
        let bytes = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        for docId in ["one", "two"] {
            let rev = DocumentRevision(docId: docId)
            rev.body = ["k": 1]
            rev.attachments["blob"] = UnsavedDataAttachment(data: bytes, name: "blob", type: "application/octet-stream")
            try a.createDocumentFromRevision(rev)
        }
        let first = try await replicate(a, with: b)
        #expect(first.remote.attachmentsReceived == 1)
        #expect(first.local.bytesSent > 50_000 && first.local.bytesSent < 100_000)
        let three = DocumentRevision(docId: "three")
        three.body = ["k": 3]
        three.attachments["copy"] = try a.getDocumentWithId("one").attachments["blob"]!
        try a.createDocumentFromRevision(three)
        let second = try await replicate(a, with: b)
        #expect(second.remote.attachmentsReceived == 0 && second.local.bytesSent < 5_000)
        #expect(try b.getDocumentWithId("three").attachments["copy"]?.dataFromAttachmentContent() == bytes)
    }
}

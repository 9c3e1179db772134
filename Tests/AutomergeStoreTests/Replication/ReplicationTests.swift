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
        // Each arrived in one write here: created (doc3 with its two changes), or deleted.
        let kinds = try Dictionary(uniqueKeysWithValues: b.changes().results.map { ($0.docId, $0.kind) })
        #expect(kinds["doc3"] == .created && kinds["doc4"] == .deleted && kinds.values.filter { $0 == .created }.count == 19)
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
        try createNumbered(300, in: a)
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

    @Test("both sides keep the bytes of concurrent attachments of one name, the hidden one too, through a compaction")
    func concurrentAttachmentsKeepBothBlobs() async throws {
        let store = try TemporaryStore()
        let a = try store.datastore("a"), b = try store.datastore("b")
        let digests = try createConcurrentAttachments(in: a, b)
        try await replicate(a, with: b)
        for side in [a, b] {
            #expect(try side.getDocumentWithId("doc").attachments["shared"]?.dataFromAttachmentContent() != nil)
            _ = try side.compact()
            #expect(digests.allSatisfy(side.holdsBlob), "a compaction removed the bytes of the value a conflict hides")
        }
    }

    @Test("a conflict that arrives under a later edit (one head) is still a conflict: listed, and both attachments' bytes survive a compaction")
    func conflictUnderOneHead() async throws {
        let store = try TemporaryStore()
        let a = try store.datastore("a"), b = try store.datastore("b")
        let inserted = try store.datastore("inserted"), updated = try store.datastore("updated")
        let digests = try createConcurrentAttachments(in: a, b)
        try await replicate(updated, with: a, direction: .pull)  // a's version alone: no conflict yet
        #expect(try updated.getConflictedDocumentIds().isEmpty)
        try await replicate(a, with: b)
        // An edit of another field on a: one head again, the attachment still conflicted.
        let merged = try a.getDocumentWithId("doc")
        merged.body["k"] = 2
        try a.updateDocumentFromRevision(merged)
        #expect(try a.getDocumentWithId("doc").automergeDocument().heads().count == 1)

        try await replicate(inserted, with: a, direction: .pull)  // a new document: an insert
        try await replicate(updated, with: a, direction: .pull)   // changes with a merge among them: an update
        for side in [inserted, updated] {
            #expect(try side.getConflictedDocumentIds() == ["doc"])
            _ = try side.compact()
            #expect(digests.allSatisfy(side.holdsBlob), "a compaction removed the bytes of the value a conflict hides")
        }
    }

    @Test("a replicator goes pending, started, complete; reports progress to its delegate and event streams")
    func statesAndProgress() async throws {
        let store = try TemporaryStore()
        let a = try store.datastore("a"), b = try store.datastore("b")
        try createNumbered(100, in: a)
        final class Recorder: ReplicatorDelegate, @unchecked Sendable {
            var states: [Replicator.State] = []
            var progress: [Int] = []
            var completed = false
            func replicatorDidChangeState(_ replicator: Replicator) { states.append(replicator.state) }
            func replicatorDidChangeProgress(_ replicator: Replicator) { progress.append(replicator.changesProcessed) }
            func replicatorDidComplete(_ replicator: Replicator) { completed = true }
        }
        let (near, far) = InProcessTransport.pair()
        async let served = b.serveReplication(over: far)
        let replicator = Replicator.push(from: a, over: near)
        let recorder = Recorder()
        replicator.delegate = recorder
        #expect(replicator.state == .pending)
        let events = replicator.events()
        try await replicator.run()
        _ = try await served
        #expect(replicator.state == .complete)
        #expect(recorder.states == [.started, .complete] && recorder.completed)
        #expect(recorder.progress == recorder.progress.sorted() && recorder.progress.last == 100)
        #expect(replicator.changesProcessed == 100 && replicator.changesTotal == 100)
        var seen: [String] = []
        for await event in events {
            switch event {
            case .stateChanged(let state): seen.append(state.rawValue)
            case .finished: seen.append("finished")
            default: continue
            }
        }
        #expect(seen == ["started", "complete", "finished"])
    }

    @Test("continuous: writes on either side replicate as they are made, until stopped")
    func continuous() async throws {
        let store = try TemporaryStore()
        let a = try store.datastore("a"), b = try store.datastore("b")
        let (near, far) = InProcessTransport.pair()
        let served = Task { try await b.serveReplication(over: far) }
        let replicator = Replicator(datastore: a, transport: near, mode: .continuous)
        replicator.start()
        let rev = DocumentRevision(docId: "live")
        rev.body = ["n": 1]
        try a.createDocumentFromRevision(rev)
        try await waitUntil { (try? b.getDocumentWithId("live")) != nil }
        let onB = try b.getDocumentWithId("live")
        onB.body["n"] = 2
        try b.updateDocumentFromRevision(onB)
        try await waitUntil { (try? a.getDocumentWithId("live").body["n"]) == 2 }
        #expect(replicator.state == .started)
        replicator.stop()
        _ = try await served.value
        try await waitUntil { replicator.state == .stopped }
        #expect(try ReplicaSnapshot(a) == ReplicaSnapshot(b))
    }

    @Test("a peer that breaks the protocol gets an error and changes nothing", arguments: [
        ReplicationMessage.sync(docId: "doc", message: Data([0x42, 0xFF, 0xFF]), attachments: [], startsExchange: true),
        .sync(docId: "_design", message: Data([0x42]), attachments: [], startsExchange: true),
        .sync(docId: "doc", message: Data([0x42]), attachments: [AttachmentDigest(digest: "md5-x", length: 1)], startsExchange: true),
        .blob(digest: "sha256-" + String(repeating: "0", count: 64), data: Data([1])),
        .hello(ReplicationHello(replicaId: "aa")),
    ])
    func hostilePeer(_ message: ReplicationMessage) async throws {
        let store = try TemporaryStore()
        let b = try store.datastore("b")
        let rev = DocumentRevision(docId: "doc")
        rev.body = ["kept": true]
        try b.createDocumentFromRevision(rev)
        let before = try ReplicaSnapshot(b)
        let (near, far) = InProcessTransport.pair()
        let served = Task { try await b.serveReplication(over: far, timeout: 5) }
        try await near.send(ReplicationFrame(serial: 0, message: .hello(ReplicationHello(replicaId: "aa", initiatorSends: true))))
        try await near.send(ReplicationFrame(serial: 1, message: message))
        await #expect(throws: ReplicationError.self) { try await served.value }
        #expect(try ReplicaSnapshot(b) == before)
    }
}

/// Waits (up to 60 s: a loaded machine) until `condition` holds.
func waitUntil(_ condition: () throws -> Bool) async throws {
    for _ in 0..<6000 {
        if try condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("timed out waiting")
}

/// Creates document "doc" in `a` and in `b` apart, each with its own
/// bytes under the attachment name "shared" (a conflict once they
/// replicate); returns the two attachments' digests.
private func createConcurrentAttachments(in a: Datastore, _ b: Datastore) throws -> [AttachmentDigest] {
    try [(a, "from a"), (b, "from b")].map { side, text in
        let rev = DocumentRevision(docId: "doc")
        rev.body = ["k": 1]
        let data = Data(text.utf8)
        rev.attachments["shared"] = UnsavedDataAttachment(data: data, name: "shared", type: "text/plain")
        try side.createDocumentFromRevision(rev)
        return AttachmentDigest(digest: BlobStore.digest(of: data), length: Int64(data.count))
    }
}

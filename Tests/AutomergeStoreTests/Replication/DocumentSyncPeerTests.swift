import Automerge
import Foundation
import Testing
@testable import AutomergeStore

/// A datastore as the store of another sync network (automerge-repo's):
/// documents kept exactly as the peers made them, each sync message stored
/// before it is answered, sync states kept per peer when asked.
@Suite("DocumentSyncPeer and documents stored as they are")
struct DocumentSyncPeerTests {
    /// Runs the sync protocol between `document` (with `state`) and the
    /// datastore through `peer` until neither side has anything to say.
    func sync(_ document: Document, _ state: SyncState, with peer: DocumentSyncPeer, docId: String) throws {
        for _ in 0..<20 {
            guard let message = document.generateSyncMessage(state: state) else { return }
            if let reply = try peer.receiveSyncMessage(message, docId: docId).reply {
                try document.receiveSyncMessage(state: state, message: reply)
            }
        }
        Issue.record("the sync did not settle in 20 rounds")
    }

    @Test("a synced document is stored with the peer's heads and nothing of the store's added")
    func storedVerbatim() throws {
        let datastore = try TemporaryStore().datastore()
        let document = Document()
        document.emptyChange()  // automerge-repo's create(): no content yet
        let peer = DocumentSyncPeer(datastore: datastore, peer: "a", persistsSyncStates: false)
        try sync(document, SyncState(), with: peer, docId: "doc1")
        let stored = try #require(try datastore.storedAutomergeDocument("doc1"))
        #expect(stored.heads() == document.heads())
        #expect(stored.keys(obj: .ROOT).isEmpty)  // no `_deleted: false` as a body-less create would write
    }

    @Test("two peers converge through the store, and the second learns the first's edit when offered")
    func twoPeersConverge() throws {
        let datastore = try TemporaryStore().datastore()
        let alice = Document(), bob = Document()
        try alice.put(obj: .ROOT, key: "from", value: .String("alice"))
        let alicePeer = DocumentSyncPeer(datastore: datastore, peer: "alice", persistsSyncStates: false)
        let bobPeer = DocumentSyncPeer(datastore: datastore, peer: "bob", persistsSyncStates: false)
        let aliceState = SyncState(), bobState = SyncState()
        try sync(alice, aliceState, with: alicePeer, docId: "shared")
        try sync(bob, bobState, with: bobPeer, docId: "shared")
        #expect(bob.heads() == alice.heads())

        try bob.put(obj: .ROOT, key: "reply", value: .String("bob"))
        try sync(bob, bobState, with: bobPeer, docId: "shared")
        let offer = try #require(try alicePeer.generateSyncMessage(docId: "shared"))
        try alice.receiveSyncMessage(state: aliceState, message: offer)
        try sync(alice, aliceState, with: alicePeer, docId: "shared")
        #expect(alice.heads() == bob.heads())
        #expect(try datastore.storedAutomergeDocument("shared")?.heads() == bob.heads())
    }

    @Test("changes sent before their dependencies wait for them, across messages that add nothing, and are stored once they arrive")
    func changesAheadOfTheirDependencies() throws {
        let datastore = try TemporaryStore().datastore()
        let author = Document()
        var changes: [[UInt8]] = []
        for index in 0..<4 {
            let before = author.heads()
            try author.put(obj: .ROOT, key: "k\(index)", value: .Int(Int64(index)))
            changes.append(Array(try author.encodeChangesSince(heads: before)))
        }
        let peer = DocumentSyncPeer(datastore: datastore, peer: "a", persistsSyncStates: false)
        func send(_ change: [UInt8]) throws {
            let message = SyncMessage(heads: Array(author.heads()), changes: [change]).encoded()
            _ = try peer.receiveSyncMessage(Data(message), docId: "doc")
        }
        // The first change lands; the last two come before the second, one message each, and wait.
        try send(changes[0])
        try send(changes[3])
        try send(changes[2])
        #expect(try datastore.storedAutomergeDocument("doc")?.keys(obj: .ROOT) == ["k0"])
        try send(changes[1])
        let stored = try #require(try datastore.storedAutomergeDocument("doc"))
        #expect(stored.keys(obj: .ROOT) == ["k0", "k1", "k2", "k3"])
        #expect(stored.heads() == author.heads())
    }

    @Test("a message that is not a sync message is a protocol violation and stores nothing")
    func corruptMessage() throws {
        let datastore = try TemporaryStore().datastore()
        let peer = DocumentSyncPeer(datastore: datastore, peer: "a", persistsSyncStates: true)
        #expect(throws: ReplicationError.self) { try peer.receiveSyncMessage(Data([0x42, 0xFF, 0x01]), docId: "x") }
        #expect(try !datastore.containsDocument("x"))
        #expect(try datastore.generateNothingFor(peer, "x") == nil)
    }

    @Test("persistent sync states survive the peer object; transient ones are never written")
    func persistence() throws {
        let datastore = try TemporaryStore().datastore()
        let document = Document()
        try document.put(obj: .ROOT, key: "k", value: .Int(1))
        try sync(document, SyncState(), with: DocumentSyncPeer(datastore: datastore, peer: "kept", persistsSyncStates: true),
                 docId: "d")
        try sync(document, SyncState(), with: DocumentSyncPeer(datastore: datastore, peer: "gone", persistsSyncStates: false),
                 docId: "d")
        #expect(try datastore.savedSyncState(peer: "kept", docId: "d")?.sharedHeads == document.heads())
        #expect(try datastore.savedSyncState(peer: "gone", docId: "d") == nil)
    }

    @Test("storeAutomergeDocument merges a document edited outside the store, and writes nothing when it has nothing new")
    func storeDocumentMerges() throws {
        let datastore = try TemporaryStore().datastore()
        let document = Document()
        try document.put(obj: .ROOT, key: "a", value: .Int(1))
        #expect(try datastore.storeAutomergeDocument(document, docId: "m"))
        #expect(try !datastore.storeAutomergeDocument(document, docId: "m"))
        let concurrent = try #require(try datastore.storedAutomergeDocument("m")).fork()
        try concurrent.put(obj: .ROOT, key: "b", value: .Int(2))
        try document.put(obj: .ROOT, key: "c", value: .Int(3))
        #expect(try datastore.storeAutomergeDocument(concurrent, docId: "m"))
        #expect(try datastore.storeAutomergeDocument(document, docId: "m"))
        let stored = try #require(try datastore.storedAutomergeDocument("m"))
        #expect(Set(stored.keys(obj: .ROOT)) == ["a", "b", "c"])
        #expect(try datastore.getDocumentWithId("m").body == ["a": 1, "b": 2, "c": 3])
    }
}

extension Datastore {
    /// What a peer would be offered for a document that does not exist.
    fileprivate func generateNothingFor(_ peer: DocumentSyncPeer, _ docId: String) throws -> Data? {
        try peer.generateSyncMessage(docId: docId)
    }
}

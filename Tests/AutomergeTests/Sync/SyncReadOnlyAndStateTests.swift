import Foundation
import Testing
@testable import Automerge

/// Read-only peers and sync resets (Rust 0.11), and the sync state's API (automerge-swift 0.6.1).
@Suite("Sync: read-only peers and state")
struct SyncReadOnlyAndStateTests {
    func twoAuthors() -> (Document, Document) {
        let one = document(actor: "abc123"), two = document(actor: "def456")
        try! one.put(obj: .ROOT, key: "from_doc1", value: .String("hello"))
        one.commitChange()
        try! two.put(obj: .ROOT, key: "from_doc2", value: .String("world"))
        two.commitChange()
        return (one, two)
    }

    @Test("a read-only peer sends its changes and applies none")
    func readOnly() throws {
        let (one, two) = twoAuthors()
        let before = one.heads()
        let (s1, s2) = (SyncState(readOnly: true), SyncState())
        try sync(one, two, s1, s2)
        #expect(two.string("from_doc1") == "hello" && two.string("from_doc2") == "world")
        #expect(one.string("from_doc2") == nil && one.heads() == before)
        #expect(s2.isPeerReadOnly)
    }

    @Test("two read-only peers exchange heads, apply nothing, and stop")
    func bothReadOnly() throws {
        let (one, two) = twoAuthors()
        let (s1, s2) = (SyncState(readOnly: true), SyncState(readOnly: true))
        try sync(one, two, s1, s2)
        #expect(one.string("from_doc2") == nil && two.string("from_doc1") == nil)
        #expect(one.generateSyncMessage(state: s1) == nil && two.generateSyncMessage(state: s2) == nil)
        #expect(s1.isPeerReadOnly && s2.isPeerReadOnly)
    }

    @Test("leaving read-only mode mid-session gets what was ignored (the sync-reset flag)")
    func leaveReadOnly() throws {
        let (one, two) = twoAuthors()
        let (s1, s2) = (SyncState(readOnly: true), SyncState())
        try sync(one, two, s1, s2)
        s1.isReadOnly = false
        let message = try decoded(one.generateSyncMessage(state: s1))
        #expect(message.flags?.contains(.syncReset) == true)
        try two.receiveSyncMessage(state: s2, message: message.encode())
        try sync(one, two, s1, s2)
        #expect(one.string("from_doc2") == "world")
        #expect(one.heads() == two.heads())
    }

    @Test("leaving read-only mode with a peer that does not know the flag sends empty heads instead")
    func leaveReadOnlyOldPeer() throws {
        let (one, two) = twoAuthors()
        let (s1, s2) = (SyncState(readOnly: true), SyncState())
        try sync(one, two, s1, s2)
        s1.isReadOnly = false
        s1.storage.withPeer { $0.theirCapabilities = nil }
        let message = try decoded(one.generateSyncMessage(state: s1))
        #expect(message.heads.isEmpty)
        #expect(message.flags?.contains(.syncReset) == false)
        try two.receiveSyncMessage(state: s2, message: message.encode())
        try sync(one, two, s1, s2)
        #expect(one.heads() == two.heads())
    }

    @Test("a saved state keeps only the shared heads; decoding starts a new session")
    func persistence() throws {
        let (one, two) = twoAuthors()
        let (s1, s2) = (SyncState(), SyncState())
        try sync(one, two, s1, s2)
        let encoded = s1.encode()
        #expect(encoded.first == 0x43 && encoded.count == 2 + 32 * one.heads().count)
        let restored = try SyncState(bytes: encoded)
        #expect(restored.sharedHeads == one.heads())
        #expect(restored.theirHeads == nil)
        #expect(s1.theirHeads == two.heads())
        s1.reset()
        #expect(s1.theirHeads == nil && s1.sharedHeads == one.heads())
        #expect(s1.encode() == encoded)
    }

    @Test("bad saved states get typed errors", arguments: [
        ([], DecodeSyncStateError.Reason.empty),
        ([0x42, 0], .unknownType(0x42)),
        ([0x43, 1, 0xAA], .malformed(.lengthPastEnd(what: "shared heads", length: 32, remaining: 1))),
    ] as [([UInt8], DecodeSyncStateError.Reason)])
    func badStates(bytes: [UInt8], reason: DecodeSyncStateError.Reason) {
        #expect(throws: DecodeSyncStateError(reason)) { try SyncState(bytes: Data(bytes)) }
    }

    @Test("copies of a SyncState share one state, as automerge-swift's do")
    func referenceSemantics() throws {
        let doc = document(actor: "aa", puts: 1)
        let state = SyncState()
        let copy = state
        _ = doc.generateSyncMessage(state: state)
        #expect(doc.generateSyncMessage(state: copy) == nil)
    }
}

import Foundation
import Testing
@testable import Automerge

/// A message that is refused changes nothing: not the document, not its
/// pending edits, not the sync state.
@Suite("Sync: refused messages change nothing")
struct SyncAtomicityTests {
    /// A document mid-session with pending edits, its state, and a snapshot of both.
    func midSession() throws -> (Document, SyncState, () -> [Data]) {
        let doc = document(actor: "aa", puts: 3)
        let peer = document(actor: "bb", puts: 2)
        let (state, peerState) = (SyncState(), SyncState())
        try doc.receiveSyncMessage(state: state, message: try #require(peer.generateSyncMessage(state: peerState)))
        try doc.put(obj: .ROOT, key: "pending", value: .Int(1))
        let snapshot = { [Data(doc.save(compress: false)), state.encode(), Data("\(state.storage.withPeer { $0 })".utf8)] }
        return (doc, state, snapshot)
    }

    @Test("bytes that are not a message")
    func notAMessage() throws {
        let (doc, state, snapshot) = try midSession()
        let before = snapshot()
        #expect(throws: ReceiveSyncError.self) { try doc.receiveSyncMessage(state: state, message: Data([0x42, 0x05])) }
        #expect(snapshot() == before)
    }

    @Test("a message whose change does not decode")
    func corruptChange() throws {
        let (doc, state, snapshot) = try midSession()
        let source = document(actor: "cc", puts: 1)
        var chunk = [UInt8](try source.encodeChangesSince(heads: []))
        chunk[chunk.count - 1] ^= 0xFF
        let message = SyncMessage(heads: [], have: [SyncHave()], changes: [chunk], flags: [.supportsSyncReset])
        let before = snapshot()
        #expect {
            try doc.receiveSyncMessage(state: state, message: message.encode())
        } throws: { error in
            guard case .changesRefused? = (error as? ReceiveSyncError)?.reason else { return false }
            return true
        }
        #expect(snapshot() == before)
        #expect(try doc.get(obj: .ROOT, key: "pending") == .Scalar(.Int(1)), "the pending edit is still there")
    }

    @Test("a whole document for an empty peer that does not load")
    func corruptWholeDocument() throws {
        let doc = Document()
        let state = SyncState()
        var save = [UInt8](document(actor: "cc", puts: 4).save())
        save[save.count / 2] ^= 0x55
        let message = SyncMessage(version: .v2, heads: [], have: [SyncHave()], changes: [save], flags: [])
        let before = state.encode()
        #expect(throws: ReceiveSyncError.self) { try doc.receiveSyncMessage(state: state, message: message.encode()) }
        #expect(doc.heads().isEmpty && state.encode() == before && state.theirHeads == nil)
    }
}

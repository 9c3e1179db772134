import AutomergeTestSupport
import Foundation
import Synchronization
import Testing
@testable import Automerge

/// Receiving a sync message decodes its changes (decompression, hashes,
/// columns) before it takes the document's lock, as `applyEncodedChanges`
/// and `merge` do: a large message must not block the document's readers
/// while it is decoded.
@Suite("Sync: changes decode outside the document's lock")
struct SyncDecodeOutsideLockTests {
    /// Holds `doc`'s lock on a thread of its own until `release` is called
    /// (or 10 s pass); `isHeld` tells whether it still holds it.
    final class LockHolder: Sendable {
        private let acquired = DispatchSemaphore(value: 0)
        private let released = DispatchSemaphore(value: 0)
        private let held = Atomic<Bool>(true)

        init(_ doc: Document) {
            Thread { [self] in
                doc.locked { _ in
                    acquired.signal()
                    _ = released.wait(timeout: .now() + 10)
                    held.store(false, ordering: .sequentiallyConsistent)
                }
            }.start()
            acquired.wait()
        }

        var isHeld: Bool { held.load(ordering: .sequentiallyConsistent) }
        func release() { released.signal() }
    }

    @Test("a change that does not decode is refused while another thread holds the lock")
    func corruptChangeRefusedWithoutTheLock() async throws {
        let doc = document(actor: "aa", puts: 2)
        var chunk = [UInt8](try document(actor: "cc", puts: 1).encodeChangesSince(heads: []))
        chunk[chunk.count - 1] ^= 0xFF
        let message = SyncMessage(heads: [], have: [SyncHave()], changes: [chunk]).encode()
        let holder = LockHolder(doc)
        let refusedWhileHeld = try await blockingWork { () -> Bool? in
            do {
                try doc.receiveSyncMessage(state: SyncState(), message: message)
                return nil
            } catch {
                guard case .changesRefused? = (error as? ReceiveSyncError)?.reason else { return nil }
                return holder.isHeld
            }
        }
        holder.release()
        #expect(refusedWhileHeld == true, "the message was decoded only once the lock was free")
    }

    @Test("a whole document received by an empty document loads, and later ones apply as changes")
    func wholeDocumentThenChanges() throws {
        let source = document(actor: "aa", puts: 3)
        let empty = Document()
        let message = SyncMessage(heads: source.heads().sorted(), have: [SyncHave()], changes: [[UInt8](source.save())]).encode()
        try empty.receiveSyncMessage(state: SyncState(), message: message)
        #expect(empty.heads() == source.heads())
        // The same bytes again, now to a document with history: applied as changes, nothing new.
        try empty.receiveSyncMessage(state: SyncState(), message: message)
        #expect(empty.heads() == source.heads())
        #expect(empty.save(compress: false) == source.save(compress: false))
    }

    @Test("a read-only state ignores changes it could not decode")
    func readOnlyIgnoresUndecodableChanges() throws {
        let doc = document(actor: "aa", puts: 1)
        let message = SyncMessage(heads: [], have: [SyncHave()], changes: [[0x85, 0x6F, 0x4A, 0x83, 0x00]]).encode()
        try doc.receiveSyncMessage(state: SyncState(readOnly: true), message: message)
        #expect(doc.heads().count == 1)
    }
}

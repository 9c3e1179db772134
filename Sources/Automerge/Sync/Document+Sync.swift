#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The sync protocol: peers holding different versions of a document
/// exchange messages until both hold every change.
///
/// ```swift
/// let state = SyncState()              // one per peer
/// if let message = doc.generateSyncMessage(state: state) { send(message) }
/// // for every message that arrives from that peer:
/// try doc.receiveSyncMessage(state: state, message: received)
/// // then generate again; stop when both sides generate nil.
/// ```
///
/// Messages and behaviour are those of Rust's automerge 0.11, and peers
/// running automerge-swift 0.6.1 (Rust 0.6) or Rust 0.5 understand them.
extension Document {
    /// The next message for the peer `state` tracks, or nil when there is
    /// nothing to send (the peer is up to date, or our last message has
    /// not been answered). Pending edits are committed first.
    public func generateSyncMessage(state: SyncState) -> Data? {
        locked { document in
            state.storage.withPeer { peer in document.generateSyncMessage(for: &peer) }
        }.map { Data($0.encoded()) }
    }

    /// Applies a message from the peer `state` tracks: its changes join
    /// the document and the state records what the peer has and wants.
    /// - Throws: ``ReceiveSyncError``; then the document and the state are unchanged.
    public func receiveSyncMessage(state: SyncState, message: Data) throws {
        let (decoded, changes) = try decodeSyncMessage(message, state: state)
        try changing { document throws(ReceiveSyncError) in
            _ = try Self.receive(decoded, changes, into: &document, state: state)
        }
    }

    /// ``receiveSyncMessage(state:message:)``, returning what changed as patches.
    public func receiveSyncMessageWithPatches(state: SyncState, message: Data) throws -> [Patch] {
        let (decoded, changes) = try decodeSyncMessage(message, state: state)
        return try changing { document throws(ReceiveSyncError) in
            guard let before = try Self.receive(decoded, changes, into: &document, state: state) else { return [] }
            do throws(AutomergeError) {
                return try document.patches(since: before)
            } catch {
                throw ReceiveSyncError(.changesRefused(error))
            }
        }
    }

    /// Whether the peer `state` tracks is known to have every change of this document.
    public func hasOurChanges(state: SyncState) -> Bool {
        let heads = locked { document in
            document.commit()
            return document.history.heads.sorted()
        }
        return state.storage.withPeer { $0.sharedHeads } == heads
    }

    /// The message and its changes, decoded outside the document's lock
    /// (``ReceivedSyncChanges``).
    private func decodeSyncMessage(_ message: Data, state: SyncState) throws(ReceiveSyncError) -> (SyncMessage, ReceivedSyncChanges) {
        let decoded: SyncMessage
        do { decoded = try SyncMessage(bytes: message) } catch { throw ReceiveSyncError(.invalidMessage(error)) }
        do {
            return (decoded, try ReceivedSyncChanges.decode(decoded, for: self, readOnly: state.isReadOnly))
        } catch {
            throw ReceiveSyncError(.changesRefused(error))
        }
    }

    /// Receives under the document's lock; returns the heads before, when changes were applied.
    private static func receive(
        _ message: SyncMessage, _ changes: ReceivedSyncChanges, into document: inout DocumentState, state: SyncState
    ) throws(ReceiveSyncError) -> Set<ChangeHash>? {
        do {
            return try state.storage.withPeer { peer throws(AutomergeError) in
                try document.receiveSyncMessage(message, decoded: changes, from: &peer)
            }
        } catch {
            throw ReceiveSyncError(.changesRefused(error))
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The state of a synchronisation session with another peer, as
/// automerge-swift's `SyncState`: a reference (copies share one state),
/// safe to use from many threads.
///
/// Keep one per peer and document. The protocol assumes a reliable,
/// in-order link: if messages may have been lost or repeated (a dropped
/// connection), call ``reset()`` before syncing again. Persist ``encode()``
/// to resume with a peer later; only what both sides are known to share is
/// kept.
public struct SyncState: @unchecked Sendable {
    final class Storage: @unchecked Sendable {
        let lock = Lock()
        var peer: PeerSyncState

        init(_ peer: PeerSyncState) { self.peer = peer }

        func withPeer<T, E: Error>(_ body: (inout PeerSyncState) throws(E) -> T) throws(E) -> T {
            lock.lock()
            defer { lock.unlock() }
            return try body(&peer)
        }
    }

    let storage: Storage

    /// A new, empty sync state.
    public init() {
        storage = Storage(PeerSyncState())
    }

    /// A new sync state; a read-only one never applies what the peer
    /// sends, but still sends our changes (Rust's `State::new_read_only`).
    public init(readOnly: Bool) {
        storage = Storage(PeerSyncState(readOnly: readOnly))
    }

    /// A sync state from ``encode()``'s bytes.
    /// - Throws: ``DecodeSyncStateError`` if the bytes are not a sync state.
    public init(bytes: Data) throws {
        storage = Storage(try PeerSyncState(decoding: [UInt8](bytes)[...]))
    }

    /// The heads the peer last reported; nil before its first message.
    public var theirHeads: Set<ChangeHash>? {
        storage.withPeer { $0.theirHeads.map(Set.init) }
    }

    /// The heads both sides are known to have.
    public var sharedHeads: Set<ChangeHash> {
        storage.withPeer { Set($0.sharedHeads) }
    }

    /// Whether this side ignores the changes the peer sends. Switching it
    /// off starts the session over and asks the peer to resend what was
    /// ignored (the sync-reset flag, or empty heads for peers that do not
    /// know it).
    public var isReadOnly: Bool {
        get { storage.withPeer { $0.isReadOnly } }
        nonmutating set { storage.withPeer { $0.setReadOnly(newValue) } }
    }

    /// Whether the peer's last message said it ignores what we send (then we send no changes).
    public var isPeerReadOnly: Bool {
        storage.withPeer { $0.isPeerReadOnly }
    }

    /// Forgets everything that depends on an unbroken connection, keeping
    /// only the shared heads (what ``encode()`` keeps) and read-only mode.
    public func reset() {
        storage.withPeer { peer in
            var fresh = PeerSyncState(readOnly: peer.isReadOnly)
            fresh.sharedHeads = peer.sharedHeads
            fresh.theirHave = []
            peer = fresh
        }
    }

    /// The persistent part of the state: `0x43` and the shared heads.
    public func encode() -> Data {
        Data(storage.withPeer { $0.encoded() })
    }
}

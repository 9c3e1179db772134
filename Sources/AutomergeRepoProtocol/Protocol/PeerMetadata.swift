/// What a peer says of itself in `join` and `peer`: the `peerMetadata` map.
public struct PeerMetadata: Hashable, Sendable {
    /// `storageId`: the id of the sender's persistent storage; `nil` when
    /// absent, `null` or `undefined` (what automerge-repo writes for a repo without storage).
    public var storageId: StorageId?
    /// `isEphemeral`: whether the sender will not come back with this storage
    /// id (so its sync state need not be kept); `false` when absent, as in samod.
    public var isEphemeral: Bool

    /// Metadata naming `storageId`, ephemeral or not.
    public init(storageId: StorageId? = nil, isEphemeral: Bool = false) {
        self.storageId = storageId
        self.isEphemeral = isEphemeral
    }
}

extension PeerMetadata {
    /// The name this peer's sync states are saved under: its storage id,
    /// which outlives its peer id, as automerge-repo keys them; nil for an
    /// ephemeral peer or one without storage, whose states are not kept.
    /// The server and the client save their sessions with a peer by it.
    var syncStateName: String? {
        guard let storageId, !isEphemeral else { return nil }
        return "automerge-repo:storage:\(storageId)"
    }
}

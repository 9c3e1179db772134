/// Receiving sync messages: Rust's `receive_sync_message` (0.11), except
/// that it is all or nothing. Rust clears "in flight" and records the
/// peer's flags before it applies the changes, and keeps both when they do
/// not apply; here a refused message leaves the document, its open
/// transaction and the peer state exactly as they were.
extension DocumentState {
    /// Applies `message`, its changes decoded as `received`, for the peer
    /// `peer` describes. Returns the heads before the call (pending edits
    /// committed) when changes were applied, for patches; nil when the
    /// document did not change.
    @discardableResult
    mutating func receiveSyncMessage(
        _ message: SyncMessage, decoded received: ReceivedSyncChanges, from peer: inout PeerSyncState
    ) throws(AutomergeError) -> Set<ChangeHash>? {
        var next = peer
        next.inFlight = false
        if let flags = message.flags {
            // A trailer of any content means V2; its bitfield says the rest.
            next.theirCapabilities = .init(messageV2: true, syncReset: flags.contains(.supportsSyncReset))
            if flags.contains(.syncReset) { next.sentHashes.removeAll() }
            next.isPeerReadOnly = flags.contains(.readOnly)
        }

        let pending = pendingChange()
        let before = heads(committing: pending)
        let beforeSorted = before.sorted()
        var applied = false
        if !message.changes.isEmpty && !next.isReadOnly {
            try applySyncChanges(received, bytes: message.changes, committing: pending)
            applied = true
            next.sharedHeads = advancedHeads(before: before, after: history.heads, shared: next.sharedHeads)
        } else {
            commit(pending)
        }

        // What they now have, they have not to be sent again.
        history.removeAncestors(of: message.heads, from: &next.sentHashes)
        if message.changes.isEmpty && message.heads == beforeSorted {
            next.lastSentHeads = message.heads
        }
        let knownHeads = message.heads.filter(history.contains)
        if knownHeads.count == message.heads.count {
            next.sharedHeads = message.heads
            if message.heads.isEmpty {
                // They have lost everything: start over.
                next.lastSentHeads = []
                next.sentHashes = []
            }
        } else {
            next.sharedHeads = Set(next.sharedHeads + knownHeads).sorted()
        }
        next.theirHave = message.have
        next.theirHeads = message.heads
        next.theirNeed = message.need
        peer = next
        return applied ? before : nil
    }

    /// Rust's `advance_heads`: our new heads, and the shared heads that are still our heads; sorted.
    private func advancedHeads(before: Set<ChangeHash>, after: Set<ChangeHash>, shared: [ChangeHash]) -> [ChangeHash] {
        var advanced = after.subtracting(before)
        for head in shared where after.contains(head) { advanced.insert(head) }
        return advanced.sorted()
    }
}

/// Receiving sync messages: Rust's `receive_sync_message` (0.11), except
/// that it is all or nothing. Rust clears "in flight" and records the
/// peer's flags before it applies the changes, and keeps both when they do
/// not apply; here a refused message leaves the document, its open
/// transaction and the peer state exactly as they were.
extension DocumentState {
    /// Applies `message` for the peer `peer` describes. Returns the heads
    /// before the call (pending edits committed) when changes were applied,
    /// for patches; nil when the document did not change.
    @discardableResult
    mutating func receiveSyncMessage(_ message: SyncMessage, from peer: inout PeerSyncState) throws(AutomergeError) -> Set<ChangeHash>? {
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
            try applySyncChanges(message.changes, committing: pending)
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

    /// Applies the chunks of a message. Into a document with no history,
    /// a whole saved document loads directly (as Rust's `load_incremental`
    /// does), which is much faster than applying its changes one by one.
    private mutating func applySyncChanges(_ chunks: [[UInt8]], committing pending: PendingChange?) throws(AutomergeError) {
        let bytes = chunks.count == 1 ? chunks[0] : chunks.reduce(into: [UInt8]()) { $0.append(contentsOf: $1) }
        if pending == nil, history.count == 0, queue.isEmpty, StorageFile.startsWithDocumentChunk(bytes) {
            var loaded = try DocumentState.load(bytes, actor: actor, encoding: encoding)
            loaded.refusesMisorderedMarks = refusesMisorderedMarks
            loaded.lastEncodedHeads = lastEncodedHeads
            self = loaded
            return
        }
        try apply(try StorageBridge.changes(in: bytes), committing: pending)
    }

    /// Rust's `advance_heads`: our new heads, and the shared heads that are still our heads; sorted.
    private func advancedHeads(before: Set<ChangeHash>, after: Set<ChangeHash>, shared: [ChangeHash]) -> [ChangeHash] {
        var advanced = after.subtracting(before)
        for head in shared where after.contains(head) { advanced.insert(head) }
        return advanced.sorted()
    }
}

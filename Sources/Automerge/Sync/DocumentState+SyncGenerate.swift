/// Generating sync messages: Rust's `generate_sync_message` (0.11), step
/// for step, so that a peer of either implementation sees the same
/// messages (byte for byte, but for the deflated columns of a whole
/// document, whose bytes depend on the deflater).
extension DocumentState {
    /// The next message for the peer `peer` describes, or nil when there is
    /// nothing to say (they are up to date, or our last message awaits an
    /// answer). Pending edits are committed first.
    mutating func generateSyncMessage(for peer: inout PeerSyncState) -> SyncMessage? {
        commit()
        let ourHeads = history.heads.sorted()
        let ourNeed = peer.isReadOnly ? [] : missingDependencies(from: peer.theirHeads ?? [])
        let theirHeads = Set(peer.theirHeads ?? [])
        // Until we have everything their heads need, a summary would only
        // make them send what we cannot apply yet.
        let ourHave = ourNeed.allSatisfy(theirHeads.contains) ? [bloomSummary(since: peer.sharedHeads)] : []

        if let firstHave = peer.theirHave?.first, !firstHave.lastSync.allSatisfy(history.contains) {
            // They last synced with a state we do not know (we lost data):
            // ask them to start over. The state is left as it was.
            return .reset(heads: ourHeads)
        }

        let outgoing = outgoingChanges(for: peer)
        let headsUnchanged = peer.lastSentHeads == ourHeads
        let headsEqual = peer.theirHeads == ourHeads
        if headsUnchanged && peer.haveResponded {
            if (headsEqual || peer.isReadOnly) && outgoing.hashes.isEmpty { return nil }
            if peer.inFlight { return nil }
        }

        peer.haveResponded = true
        peer.lastSentHeads = ourHeads
        peer.sentHashes.formUnion(outgoing.hashes)

        var flags: SyncMessageFlags = [.supportsSyncReset]
        if peer.isReadOnly { flags.insert(.readOnly) }
        var headsToSend = ourHeads
        if peer.needsReset {
            peer.needsReset = false
            // Peers that do not know the flag reset when we look empty.
            if peer.peerSupportsSyncReset { flags.insert(.syncReset) } else { headsToSend = [] }
        }
        peer.inFlight = true
        return SyncMessage(version: outgoing.version, heads: headsToSend, need: ourNeed, have: ourHave,
                           changes: outgoing.chunks, flags: flags)
    }

    /// What a message carries, and the hashes of the changes in it.
    private struct OutgoingChanges {
        var version: SyncMessage.Version
        var chunks: [[UInt8]] = []
        var hashes: [ChangeHash] = []

        /// No changes, in the version the peer reads.
        init(for peer: PeerSyncState) {
            version = peer.supportsV2Messages ? .v2 : .v1
        }

        /// `records` as V2's one concatenated entry if the peer reads V2, else one V1 entry each.
        init(_ records: [ChangeRecord], of history: ChangeGraph, for peer: PeerSyncState) {
            self.init(for: peer)
            hashes = records.map(\.hash)
            guard !records.isEmpty else { return }
            if version == .v2 {
                chunks = [records.reduce(into: [UInt8]()) { $0.append(contentsOf: history.bytes(of: $1)) }]
            } else {
                chunks = records.map { Array(history.bytes(of: $0)) }
            }
        }

        /// A whole saved document (V2), standing for every change in it.
        init(document: [UInt8], hashes: [ChangeHash]) {
            version = .v2
            if !document.isEmpty {
                chunks = [document]
                self.hashes = hashes
            }
        }
    }

    private func outgoingChanges(for peer: PeerSyncState) -> OutgoingChanges {
        // A read-only peer would ignore changes: send none.
        guard !peer.isPeerReadOnly, let theirHave = peer.theirHave, let theirNeed = peer.theirNeed else {
            return OutgoingChanges(for: peer)
        }
        if peer.shouldSendWholeDocument { return wholeDocument() }
        let hashes = hashesToSend(have: theirHave, need: theirNeed).filter { !peer.sentHashes.contains($0) }
        if hashes.count > history.count / 3 && peer.supportsV2Messages { return wholeDocument() }
        return OutgoingChanges(hashes.compactMap { history.record($0) }, of: history, for: peer)
    }

    /// The document chunk alone, deflated for size (a first sync's bytes
    /// are mostly this chunk; see ``DeflateEffort/small``): unlike a save (and Rust's), no queued
    /// orphans. The message stands for the history's changes; an orphan,
    /// perhaps forged, that the peer can apply but must refuse would make
    /// it refuse the whole document every time, and the peers would never
    /// converge (found by fuzzing: Corpus/sync/whole-document-message-carries-orphan).
    private func wholeDocument() -> OutgoingChanges {
        OutgoingChanges(document: documentChunk(deflating: .small), hashes: history.records.map(\.hash))
    }

    /// Rust's `get_hashes_to_send`: the changes they asked for that we
    /// have, then every change since their last syncs that none of their
    /// filters holds, with everything that depends on those (a false
    /// positive must not hide a change whose descendants they lack).
    private func hashesToSend(have: [SyncHave], need: [ChangeHash]) -> [ChangeHash] {
        let need = need.filter(history.contains)
        guard !have.isEmpty else { return need }
        var lastSync = Set<ChangeHash>()
        for entry in have { lastSync.formUnion(entry.lastSync) }
        let candidates = history.indices(notReachableFrom: lastSync)
        var send = Set<Int>()
        var dependents: [Int: [Int]] = [:]
        for index in candidates {
            for dependency in history.dependencyIndices(of: history.records[index]) { dependents[dependency, default: []].append(index) }
            let hash = history.records[index].hash
            if !have.contains(where: { $0.bloom.contains(hash) }) { send.insert(index) }
        }
        var stack = Array(send)
        while let index = stack.popLast() {
            for dependent in dependents[index] ?? [] where send.insert(dependent).inserted { stack.append(dependent) }
        }
        var result: [ChangeHash] = []
        result.reserveCapacity(need.count + send.count)
        for hash in need where !(history.index(of: hash).map(send.contains) ?? false) { result.append(hash) }
        for index in candidates where send.contains(index) { result.append(history.records[index].hash) }
        return result
    }

    /// A summary of our changes since `lastSync`.
    private func bloomSummary(since lastSync: [ChangeHash]) -> SyncHave {
        let hashes = history.indices(notReachableFrom: lastSync).lazy.map { history.records[$0].hash }
        return SyncHave(lastSync: lastSync, bloom: SyncBloomFilter(hashes: hashes))
    }

    /// Rust's `missing_deps_from`: the first hash on each path back from
    /// `start` that is neither applied nor queued, going through the
    /// dependencies of queued changes; sorted. (Not every queued change's
    /// missing dependencies: orphans from elsewhere must not block a sync.)
    func missingDependencies(from start: [ChangeHash]) -> [ChangeHash] {
        var missing = Set<ChangeHash>()
        var seen = Set<ChangeHash>()
        var stack = start
        while let hash = stack.popLast() {
            if history.contains(hash) || !seen.insert(hash).inserted { continue }
            if let queued = queue.change(hash) { stack.append(contentsOf: queued.stored.dependencies) } else { missing.insert(hash) }
        }
        return missing.sorted()
    }
}

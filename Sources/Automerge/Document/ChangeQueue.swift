/// Received changes waiting for their dependencies (Rust's change queue),
/// indexed so that receiving costs what a call brings and what it makes
/// ready, never the length of the queue.
///
/// Rust (0.11) scans its whole queue at every call, as this package did:
/// a peer sending changes one at a time, each missing a dependency, made
/// its n-th call cost n. Here each queued change counts its dependency
/// listings the history lacks (``remaining(_:)``), and each missing hash
/// lists the changes waiting for it (``dependents(of:)``), in arrival order.
/// A hash entering the history (``noteApplied(_:)``: a change applied, or
/// committed locally) counts itself off its dependents.
///
/// Arrival order is kept: it decides the order in which queued changes
/// that become ready together apply, and how a save lists orphans.
struct ChangeQueue: Sendable, Sequence {
    /// A queued change's place, stable until it leaves the queue.
    typealias Slot = Int

    /// The changes in arrival order; nil where one has left.
    private var slots: [DecodedChange?] = []
    /// Per slot: its dependency listings the history does not hold yet.
    private var remainingBySlot: [Int] = []
    private var slotOfHash: [ChangeHash: Slot] = [:]
    private var slotOfIdentity: [ChangeIdentity: Slot] = [:]
    /// For each hash a queued change lists and the history lacks: the
    /// slots listing it, in arrival order, once per listing. Slots that
    /// have left are skipped, and dropped at the next compaction.
    private var waitingFor: [ChangeHash: [Slot]] = [:]
    /// Slots whose dependencies all reached the history outside a receive
    /// (a local commit): the next receive applies them.
    private(set) var unblocked: Set<Slot> = []

    /// How many changes wait.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    func contains(_ hash: ChangeHash) -> Bool { slotOfHash[hash] != nil }

    /// Whether a queued change has `identity` (its author and sequence number).
    func contains(_ identity: ChangeIdentity) -> Bool { slotOfIdentity[identity] != nil }

    /// The queued change with `hash`.
    func change(_ hash: ChangeHash) -> DecodedChange? { slotOfHash[hash].flatMap { slots[$0] } }

    /// The change at `slot`, which must be queued.
    func change(at slot: Slot) -> DecodedChange { slots[slot]! }

    /// How many dependency listings of the change at `slot` the history lacks.
    func remaining(_ slot: Slot) -> Int { remainingBySlot[slot] }

    /// The queued changes that list `hash`, in arrival order, once per listing.
    func dependents(of hash: ChangeHash) -> [Slot] {
        (waitingFor[hash] ?? []).filter { slots[$0] != nil }
    }

    /// The queued changes in arrival order.
    func makeIterator() -> some IteratorProtocol<DecodedChange> { slots.lazy.compactMap { $0 }.makeIterator() }

    /// Queues `change`, whose dependency listings `missing` the history lacks.
    mutating func enqueue(_ change: DecodedChange, missing: [ChangeHash]) {
        let slot = slots.count
        slots.append(change)
        remainingBySlot.append(missing.count)
        slotOfHash[change.hash] = slot
        if let author = change.stored.actors.first {
            slotOfIdentity[ChangeIdentity(actor: author, sequence: change.stored.sequence)] = slot
        }
        for hash in missing { waitingFor[hash, default: []].append(slot) }
        if missing.isEmpty { unblocked.insert(slot) }
        count += 1
    }

    /// Counts `hash`, now in the history, off the changes waiting for it.
    mutating func noteApplied(_ hash: ChangeHash) {
        guard let waiting = waitingFor.removeValue(forKey: hash) else { return }
        for slot in waiting where slots[slot] != nil {
            remainingBySlot[slot] -= 1
            if remainingBySlot[slot] == 0 { unblocked.insert(slot) }
        }
    }

    /// Removes the change at `slot` (applied, refused, or taken by a local
    /// commit). Slots stay valid until ``compactIfSparse()``.
    mutating func remove(_ slot: Slot) {
        guard let change = slots[slot] else { return }
        slots[slot] = nil
        slotOfHash[change.hash] = nil
        if let author = change.stored.actors.first {
            slotOfIdentity[ChangeIdentity(actor: author, sequence: change.stored.sequence)] = nil
        }
        unblocked.remove(slot)
        count -= 1
    }

    /// Removes the queued change with `hash`, if any.
    mutating func remove(_ hash: ChangeHash) {
        if let slot = slotOfHash[hash] { remove(slot) }
    }

    /// Removes the queued change with `identity`, if any.
    mutating func remove(_ identity: ChangeIdentity) {
        if let slot = slotOfIdentity[identity] { remove(slot) }
    }

    /// Renumbers the slots without the gaps left by removed changes once
    /// the gaps are three quarters of them, so that the queue's memory
    /// follows the changes it holds (amortised O(1) per removal). Slots
    /// held from before are invalid after it.
    mutating func compactIfSparse() {
        guard slots.count >= 64 && count * 4 < slots.count else { return }
        compact()
    }

    private mutating func compact() {
        var renumbered = [Slot](repeating: -1, count: slots.count)
        var kept: [DecodedChange?] = []
        var remaining: [Int] = []
        kept.reserveCapacity(count)
        remaining.reserveCapacity(count)
        for slot in slots.indices where slots[slot] != nil {
            renumbered[slot] = kept.count
            kept.append(slots[slot])
            remaining.append(remainingBySlot[slot])
        }
        (slots, remainingBySlot) = (kept, remaining)
        slotOfHash = slotOfHash.mapValues { renumbered[$0] }
        slotOfIdentity = slotOfIdentity.mapValues { renumbered[$0] }
        waitingFor = waitingFor.compactMapValues { list in
            let live = list.compactMap { renumbered[$0] >= 0 ? renumbered[$0] : nil }
            return live.isEmpty ? nil : live
        }
        unblocked = Set(unblocked.map { renumbered[$0] })
    }
}

/// An (actor, sequence number) pair: unique among a document's changes.
struct ChangeIdentity: Hashable {
    let actor: ActorId
    let sequence: UInt64
}

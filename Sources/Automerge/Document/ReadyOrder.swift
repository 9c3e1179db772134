/// The changes a receive makes ready, in the order they apply: Kahn's
/// algorithm over the changes received and the queued ones they release,
/// first in first out among the ready, as Rust's change queue orders them
/// (the order decides how a save lists them).
///
/// Only the call's changes and the queued changes they reach are visited
/// (``ChangeQueue`` indexes the queue by the hashes it waits for), so the
/// cost follows the call, not the queue.
struct ReadyOrder {
    /// The call's new changes first, then the queued changes released, in
    /// the order they were released: what ``order`` indexes.
    private(set) var changes: [DecodedChange]
    /// Positions in ``changes`` in the order they apply.
    private(set) var order: [Int] = []
    /// The queue slot of each released queued change, by position.
    private(set) var queuedSlots: [Int: ChangeQueue.Slot] = [:]
    /// How many of ``changes`` the call brought (the rest were queued).
    let freshCount: Int

    /// Orders `fresh` (new to the document and the queue) and the changes
    /// of `queue` they release, given the changes `known` already holds;
    /// `newlyKnown` entered the history since the queue last counted
    /// (the open transaction about to commit); queued changes in `dropped`
    /// are left out.
    init(fresh: [DecodedChange], queue: ChangeQueue, known: KnownChanges, newlyKnown: ChangeHash?,
         dropping dropped: Set<ChangeHash>) {
        changes = fresh
        freshCount = fresh.count
        var remaining = [Int](repeating: 0, count: fresh.count)
        // The fresh changes waiting on each hash that a fresh or queued change has, in fresh order.
        var freshWaiting: [ChangeHash: [Int]] = [:]
        var freshPosition = [ChangeHash: Int](minimumCapacity: fresh.count)
        for index in fresh.indices { freshPosition[fresh[index].hash] = index }
        for index in fresh.indices {
            for dependency in fresh[index].stored.dependencies where !known.contains(dependency) {
                remaining[index] += 1
                if freshPosition[dependency] != nil || (queue.contains(dependency) && !dropped.contains(dependency)) {
                    freshWaiting[dependency, default: []].append(index)
                }
            }
        }
        // Queued counts, as this call changes them (the queue's are updated once it succeeds).
        var queuedRemaining: [ChangeQueue.Slot: Int] = [:]
        var released: [ChangeQueue.Slot] = queue.unblocked.filter { !dropped.contains(queue.change(at: $0).hash) }
        func countOff(_ hash: ChangeHash, into released: inout [ChangeQueue.Slot]) {
            for slot in queue.dependents(of: hash) where !dropped.contains(queue.change(at: slot).hash) {
                let left = (queuedRemaining[slot] ?? queue.remaining(slot)) - 1
                queuedRemaining[slot] = left
                if left == 0 { released.append(slot) }
            }
        }
        if let newlyKnown { countOff(newlyKnown, into: &released) }
        // Ready at the start: queued changes first, in arrival order, then fresh ones.
        for slot in released.sorted() { appendQueued(slot, from: queue) }
        order += remaining.indices.filter { remaining[$0] == 0 }
        var head = 0
        while head < order.count {
            let hash = changes[order[head]].hash
            head += 1
            var releasedNow: [ChangeQueue.Slot] = []
            countOff(hash, into: &releasedNow)
            for slot in releasedNow { appendQueued(slot, from: queue) }
            for index in freshWaiting[hash] ?? [] {
                remaining[index] -= 1
                if remaining[index] == 0 { order.append(index) }
            }
        }
    }

    private mutating func appendQueued(_ slot: ChangeQueue.Slot, from queue: ChangeQueue) {
        queuedSlots[changes.count] = slot
        order.append(changes.count)
        changes.append(queue.change(at: slot))
    }

    /// Whether the change at `position` of ``changes`` was queued before the call.
    func isQueued(_ position: Int) -> Bool { position >= freshCount }

    /// The positions of the fresh changes that stay waiting, in the order received.
    var freshStillWaiting: [Int] {
        var taken = [Bool](repeating: false, count: freshCount)
        for position in order where position < freshCount { taken[position] = true }
        return taken.indices.filter { !taken[$0] }
    }
}

/// Receiving changes: from another document, from encoded bytes, or from a
/// file being loaded. Changes whose dependencies are missing wait in a
/// queue; ready ones apply in Kahn order with first-in-first-out ties, as
/// Rust's change queue does (the order decides how a save lists them).
///
/// All or nothing. Rust's `apply_changes` applies change by change and
/// stops at the first that fails, keeping those before it (and having
/// committed the open transaction first). Here every change a call would
/// apply is decoded and checked first, against the document and the
/// changes before it (``ChangeChecker``, ``ReceivedMarkOrder``); only when
/// all have passed is the open transaction committed and anything applied,
/// and applying checked changes cannot fail. So a refused call leaves the
/// heads, the open transaction, the queue and the saved bytes as they were,
/// at no cost beyond the checks themselves (no copy of the document).
///
/// A change queued by an earlier call is checked only once its
/// dependencies arrive. If it is refused then, it is dropped from the queue
/// (it can never apply; the changes that depend on it stay queued) and the
/// call goes on without it: failing the call would make the change that
/// completed the dependencies, itself valid, unappliable for as long as
/// the bad change waited.
extension DocumentState {
    /// Applies `changes`, queueing those that wait for dependencies.
    /// Returns how many changes applied (queued ones that became ready included).
    @discardableResult
    mutating func apply(_ changes: [DecodedChange]) throws(AutomergeError) -> Int {
        try apply(changes, committing: pendingChange())
    }

    /// ``apply(_:)``, given the open transaction's ``pendingChange(message:time:)``.
    @discardableResult
    mutating func apply(_ changes: [DecodedChange], committing pending: PendingChange?) throws(AutomergeError) -> Int {
        let plan = try plan(try newChanges(in: changes, pending: pending), pending: pending)
        // Everything has passed: from here on nothing fails.
        queue = plan.queue
        commit(pending)
        ops.actors = plan.actors
        for change in plan.ready { try applyChecked(change) }
        return plan.ready.count
    }

    /// What a call applies and leaves queued, decided before anything changes.
    private struct Plan {
        var ready: [CheckedChange]
        var queue: [DecodedChange]
        /// The op set's actor table with the ready changes' actors added.
        var actors: ActorTable
    }

    private enum PlanOutcome {
        case ready(Plan)
        /// A change queued by an earlier call is refused: plan again without it.
        case refusedQueuedChange(ChangeHash)
    }

    /// The changes of `changes` the document does not have, has not queued
    /// and that the call does not repeat; throws if one reuses an (actor,
    /// sequence number) pair with other contents.
    private func newChanges(in changes: [DecodedChange], pending: PendingChange?) throws(AutomergeError) -> [DecodedChange] {
        let known = KnownChanges(history: history, pending: pending)
        let queued = Set(queue.map(\.hash))
        var identities = Set(queue.map { ChangeIdentity(actor: $0.stored.actors[0], sequence: $0.stored.sequence) })
        var hashes = Set<ChangeHash>()
        var fresh: [Int] = []
        for (index, change) in changes.enumerated() {
            if known.contains(change.hash) || queued.contains(change.hash) || hashes.contains(change.hash) { continue }
            guard let author = change.stored.actors.first else { throw .invalidChange("change has no author") }
            let identity = ChangeIdentity(actor: author, sequence: change.stored.sequence)
            if let index = ops.actors.index(of: author), known.hash(actor: index, sequence: change.stored.sequence) != nil {
                throw .duplicateSequenceNumber(actor: author, sequence: change.stored.sequence)
            }
            guard identities.insert(identity).inserted else {
                throw .duplicateSequenceNumber(actor: author, sequence: change.stored.sequence)
            }
            hashes.insert(change.hash)
            fresh.append(index)
        }
        // All new (the usual case): the caller's array, not a copy of each change.
        return fresh.count == changes.count ? changes : fresh.map { changes[$0] }
    }

    /// Orders and checks what the queue and `fresh` make ready, dropping
    /// queued changes that are refused.
    private func plan(_ fresh: [DecodedChange], pending: PendingChange?) throws(AutomergeError) -> Plan {
        var dropped = Set<ChangeHash>()
        while true {
            switch try plan(fresh, pending: pending, dropping: dropped) {
            case .ready(let plan): return plan
            case .refusedQueuedChange(let hash): dropped.insert(hash)
            }
        }
    }

    /// Orders and checks what the queue, less `dropped`, and `fresh` make ready.
    private func plan(_ fresh: [DecodedChange], pending: PendingChange?, dropping dropped: Set<ChangeHash>) throws(AutomergeError) -> PlanOutcome {
        let waiting = queue.isEmpty ? fresh : queue.filter { !dropped.contains($0.hash) } + fresh
        let queuedCount = waiting.count - fresh.count
        var checker = ChangeChecker(ops: ops, known: KnownChanges(history: history, pending: pending))
        let order = readyOrder(of: waiting, known: checker.known)
        checker.reserveCapacity(order.count)
        var ready: [CheckedChange] = []
        ready.reserveCapacity(order.count)
        /// Refuses the change at `position` of `ready` for not being in canonical form.
        func refuseNonCanonical(at position: Int) throws(AutomergeError) -> PlanOutcome {
            if order[position] < queuedCount { return .refusedQueuedChange(ready[position].change.hash) }
            throw ChangeChecker.notCanonical(ready[position].change)
        }
        for index in order {
            do {
                ready.append(try checker.check(waiting[index]))
            } catch {
                // Checked in order, a change before this one that is not
                // canonical would have been refused first.
                if let position = ChangeChecker.firstNonCanonical(in: ready, actors: checker.actors) {
                    return try refuseNonCanonical(at: position)
                }
                if index < queuedCount { return .refusedQueuedChange(waiting[index].hash) }
                throw error
            }
        }
        if let position = ChangeChecker.firstNonCanonical(in: ready, actors: checker.actors) {
            return try refuseNonCanonical(at: position)
        }
        if refusesMisorderedMarks,
           let position = ReceivedMarkOrder.firstMisordered(in: ready, appliedTo: ops, actors: checker.actors, created: checker.created) {
            if order[position] < queuedCount { return .refusedQueuedChange(waiting[order[position]].hash) }
            throw .invalidChange("change \(ready[position].change.hash) puts a mark's end anchor before its begin anchor; "
                + "a document holding it could not be loaded again")
        }
        var taken = [Bool](repeating: false, count: waiting.count)
        for index in order { taken[index] = true }
        let stillWaiting = waiting.indices.filter { !taken[$0] }.map { waiting[$0] }
        return .ready(Plan(ready: ready, queue: stillWaiting, actors: checker.actors))
    }

    /// The positions of the changes of `waiting` whose dependencies are
    /// met, directly or through each other, in topological order (Kahn's
    /// algorithm, first in first out among the ready).
    private func readyOrder(of waiting: [DecodedChange], known: KnownChanges) -> [Int] {
        var unsatisfied = [Int](repeating: 0, count: waiting.count)
        var dependents: [ChangeHash: [Int]] = [:]
        for (index, change) in waiting.enumerated() {
            for dependency in change.stored.dependencies where !known.contains(dependency) {
                unsatisfied[index] += 1
                dependents[dependency, default: []].append(index)
            }
        }
        var order = unsatisfied.indices.filter { unsatisfied[$0] == 0 }
        var head = 0
        while head < order.count {
            let index = order[head]
            head += 1
            for dependent in dependents.removeValue(forKey: waiting[index].hash) ?? [] {
                unsatisfied[dependent] -= 1
                if unsatisfied[dependent] == 0 { order.append(dependent) }
            }
        }
        return order
    }

    /// Applies a change that passed the checks, after those before it.
    private mutating func applyChecked(_ checked: CheckedChange) throws(AutomergeError) {
        for op in checked.ops {
            do { try ops.apply(op) } catch {
                // Not reached: the checks cover every way `apply` fails.
                throw .invalidChange("change \(checked.change.hash) passed its checks but does not apply: \(error)")
            }
        }
        // The change's own max op counts, not only the ops it holds: a change
        // with few or no ops may still claim a higher one, and a later local
        // change must start above it (as in Rust, which takes the max op from
        // the change), or the saved document fails its max-op check on load.
        // Found by fuzzing: Corpus/changes/empty-change-max-op-ignored.
        ops.maxOp = max(ops.maxOp, checked.change.stored.maxOp)
        addToHistory(checked.change.stored, hash: checked.change.hash, bytes: checked.change.bytes, actor: checked.author)
    }
}

/// An (actor, sequence number) pair: unique among a document's changes.
struct ChangeIdentity: Hashable {
    let actor: ActorId
    let sequence: UInt64
}

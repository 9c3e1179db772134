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
        guard plan.ready.count >= Self.historyRecordedAlongsideThreshold else {
            for checked in plan.ready {
                let change = plan.waiting[checked.position]
                try applyOps(of: checked, change: change)
                history.add(change, actor: checked.author)
            }
            return plan.ready.count
        }
        // The op set and the change graph are apart: a large batch records
        // its changes in the graph on another core while its ops apply here.
        var history = self.history
        self.history = ChangeGraph()
        let (failure, _) = Concurrently.run({ () -> AutomergeError? in
            do throws(AutomergeError) {
                for checked in plan.ready { try applyOps(of: checked, change: plan.waiting[checked.position]) }
                return nil
            } catch { return error }
        }, {
            for checked in plan.ready { history.add(plan.waiting[checked.position], actor: checked.author) }
        })
        self.history = history
        if let failure { throw failure }
        return plan.ready.count
    }

    /// From this many changes applied at once, the change graph records
    /// them on another core (``Concurrently``) while their ops apply.
    static let historyRecordedAlongsideThreshold = 64

    /// What a call applies and leaves queued, decided before anything changes.
    private struct Plan {
        /// The changes checked, in the order they apply, at their positions in ``waiting``.
        var ready: [CheckedChange]
        /// The queue's changes and the call's, as checked.
        var waiting: [DecodedChange]
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
        identities.reserveCapacity(queue.count + changes.count)
        var hashes = Set<ChangeHash>(minimumCapacity: changes.count)
        var fresh: [Int] = []
        fresh.reserveCapacity(changes.count)
        // Fields are read in place: binding each change to a local copied it.
        for index in changes.indices {
            let hash = changes[index].hash
            if known.contains(hash) || queued.contains(hash) || !hashes.insert(hash).inserted { continue }
            guard let author = changes[index].stored.actors.first else { throw .invalidChange("change has no author") }
            let sequence = changes[index].stored.sequence
            if let actor = ops.actors.index(of: author), known.hash(actor: actor, sequence: sequence) != nil {
                throw .duplicateSequenceNumber(actor: author, sequence: sequence)
            }
            guard identities.insert(ChangeIdentity(actor: author, sequence: sequence)).inserted else {
                throw .duplicateSequenceNumber(actor: author, sequence: sequence)
            }
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
        /// Refuses the change at `position` of `ready` for not being in canonical form.
        func refuseNonCanonical(at position: Int) throws(AutomergeError) -> PlanOutcome {
            if order[position] < queuedCount { return .refusedQueuedChange(waiting[order[position]].hash) }
            throw ChangeChecker.notCanonical(waiting[order[position]])
        }
        let outcome = checker.check(waiting, in: order)
        let ready = outcome.ready
        // Checked in order, a change before the one a check refused that is
        // not canonical is refused first.
        if let position = outcome.firstNonCanonical { return try refuseNonCanonical(at: position) }
        if let error = outcome.error {
            let index = order[ready.count]
            if index < queuedCount { return .refusedQueuedChange(waiting[index].hash) }
            throw error
        }
        if refusesMisorderedMarks,
           let position = ReceivedMarkOrder.firstMisordered(in: ready, appliedTo: ops, actors: checker.actors, created: checker.created) {
            if order[position] < queuedCount { return .refusedQueuedChange(waiting[order[position]].hash) }
            throw .invalidChange("change \(waiting[order[position]].hash) puts a mark's end anchor before its begin anchor; "
                + "a document holding it could not be loaded again")
        }
        var taken = [Bool](repeating: false, count: waiting.count)
        for index in order { taken[index] = true }
        let stillWaiting = waiting.indices.filter { !taken[$0] }.map { waiting[$0] }
        return .ready(Plan(ready: ready, waiting: waiting, queue: stillWaiting, actors: checker.actors))
    }

    /// The positions of the changes of `waiting` whose dependencies are
    /// met, directly or through each other, in topological order (Kahn's
    /// algorithm, first in first out among the ready).
    ///
    /// The edges between waiting changes are kept in one array, grouped by
    /// the change depended on (a list per depended-on hash cost a batch of
    /// 10,000 chained changes 10,000 arrays).
    private func readyOrder(of waiting: [DecodedChange], known: KnownChanges) -> [Int] {
        var position = [ChangeHash: Int](minimumCapacity: waiting.count)
        for index in waiting.indices { position[waiting[index].hash] = index }
        var unsatisfied = [Int](repeating: 0, count: waiting.count)
        // Edge (from, to): `to` waits for `from`, in the order `to` lists them.
        var edges: [(from: Int, to: Int)] = []
        edges.reserveCapacity(waiting.count)
        for index in waiting.indices {
            for dependency in waiting[index].stored.dependencies where !known.contains(dependency) {
                unsatisfied[index] += 1
                if let from = position[dependency] { edges.append((from, index)) }
            }
        }
        // The dependents of change i are dependents[start[i]..<start[i + 1]], in edge order.
        var start = [Int](repeating: 0, count: waiting.count + 1)
        for edge in edges { start[edge.from + 1] += 1 }
        for index in waiting.indices { start[index + 1] += start[index] }
        var filled = start
        var dependents = [Int](repeating: 0, count: edges.count)
        for edge in edges {
            dependents[filled[edge.from]] = edge.to
            filled[edge.from] += 1
        }
        var order = unsatisfied.indices.filter { unsatisfied[$0] == 0 }
        var head = 0
        while head < order.count {
            let index = order[head]
            head += 1
            for dependent in dependents[start[index]..<start[index + 1]] {
                unsatisfied[dependent] -= 1
                if unsatisfied[dependent] == 0 { order.append(dependent) }
            }
        }
        return order
    }

    /// Applies the ops of `change`, checked as `checked`, after those
    /// before it (its record in the history is apart).
    private mutating func applyOps(of checked: CheckedChange, change: DecodedChange) throws(AutomergeError) {
        for index in checked.ops.indices {
            do { try ops.apply(checked.ops[index]) } catch {
                // Not reached: the checks cover every way `apply` fails.
                throw .invalidChange("change \(change.hash) passed its checks but does not apply: \(error)")
            }
        }
        // The change's own max op counts, not only the ops it holds: a change
        // with few or no ops may still claim a higher one, and a later local
        // change must start above it (as in Rust, which takes the max op from
        // the change), or the saved document fails its max-op check on load.
        // Found by fuzzing: Corpus/changes/empty-change-max-op-ignored.
        ops.maxOp = max(ops.maxOp, change.stored.maxOp)
    }
}

/// An (actor, sequence number) pair: unique among a document's changes.
struct ChangeIdentity: Hashable {
    let actor: ActorId
    let sequence: UInt64
}

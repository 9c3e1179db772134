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
        let fresh = try newChanges(in: changes, pending: pending)
        // The checker interns the changes' actors into the op set's table,
        // taken out of the op set while it does so that it grows in place
        // (a copy of the whole table per call made each new actor cost as
        // many as the document had); a refused call trims it back.
        var actors = ops.actors
        let actorCount = actors.count
        ops.actors = ActorTable()
        let plan: Plan
        do {
            plan = try self.plan(fresh, pending: pending, actors: &actors, actorCount: actorCount)
        } catch {
            actors.removeActors(from: actorCount)
            ops.actors = actors
            throw error
        }
        ops.actors = actors
        apply(plan, committing: pending)
        return plan.ready.count
    }

    /// Carries out a plan whose changes have all passed their checks. It
    /// cannot fail (nothing here throws): the queue and the open
    /// transaction change first, so a failure part way would leave the
    /// document torn.
    private mutating func apply(_ plan: Plan, committing pending: PendingChange?) {
        commit(pending)
        for hash in plan.dropped { queue.remove(hash) }
        let changes = plan.order.changes
        if plan.ready.count < Self.historyRecordedAlongsideThreshold {
            for checked in plan.ready {
                applyOps(of: checked, change: changes[checked.position])
                history.add(changes[checked.position], actor: checked.author)
            }
        } else {
            // The op set and the change graph are apart: a large batch records
            // its changes in the graph on another core while its ops apply here.
            var history = self.history
            self.history = ChangeGraph()
            _ = Concurrently.run({
                for checked in plan.ready { applyOps(of: checked, change: changes[checked.position]) }
            }, {
                for checked in plan.ready { history.add(changes[checked.position], actor: checked.author) }
            })
            self.history = history
        }
        for checked in plan.ready {
            if let slot = plan.order.queuedSlots[checked.position] { queue.remove(slot) }
            queue.noteApplied(changes[checked.position].hash)
        }
        queue.compactIfSparse()
        for position in plan.order.freshStillWaiting {
            let change = changes[position]
            queue.enqueue(change, missing: change.stored.dependencies.filter { !history.contains($0) })
        }
    }

    /// From this many changes applied at once, the change graph records
    /// them on another core (``Concurrently``) while their ops apply.
    static let historyRecordedAlongsideThreshold = 64

    /// What a call applies and leaves queued, decided before anything changes.
    private struct Plan {
        /// The changes checked, in the order they apply, at their positions in ``order``'s changes.
        var ready: [CheckedChange]
        var order: ReadyOrder
        /// Queued changes refused: they leave the queue.
        var dropped: Set<ChangeHash>
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
        var identities = Set<ChangeIdentity>(minimumCapacity: changes.count)
        var hashes = Set<ChangeHash>(minimumCapacity: changes.count)
        var fresh: [Int] = []
        fresh.reserveCapacity(changes.count)
        // Fields are read in place: binding each change to a local copied it.
        for index in changes.indices {
            let hash = changes[index].hash
            if known.contains(hash) || queue.contains(hash) || !hashes.insert(hash).inserted { continue }
            guard let author = changes[index].stored.actors.first else { throw .invalidChange("change has no author") }
            let sequence = changes[index].stored.sequence
            if let actor = ops.actors.index(of: author), known.hash(actor: actor, sequence: sequence) != nil {
                throw .duplicateSequenceNumber(actor: author, sequence: sequence)
            }
            let identity = ChangeIdentity(actor: author, sequence: sequence)
            guard !queue.contains(identity), identities.insert(identity).inserted else {
                throw .duplicateSequenceNumber(actor: author, sequence: sequence)
            }
            fresh.append(index)
        }
        // All new (the usual case): the caller's array, not a copy of each change.
        return fresh.count == changes.count ? changes : fresh.map { changes[$0] }
    }

    /// Orders and checks what `fresh` and the queue make ready, dropping
    /// queued changes that are refused. `actors`: the op set's table, with
    /// `actorCount` actors, which the checks extend.
    private func plan(_ fresh: [DecodedChange], pending: PendingChange?, actors: inout ActorTable, actorCount: Int) throws(AutomergeError) -> Plan {
        var dropped = Set<ChangeHash>()
        while true {
            switch try plan(fresh, pending: pending, dropping: dropped, actors: &actors) {
            case .ready(let plan): return plan
            case .refusedQueuedChange(let hash):
                dropped.insert(hash)
                actors.removeActors(from: actorCount)
            }
        }
    }

    /// Orders and checks what `fresh` and the queue, less `dropped`, make ready.
    private func plan(
        _ fresh: [DecodedChange], pending: PendingChange?, dropping dropped: Set<ChangeHash>, actors: inout ActorTable
    ) throws(AutomergeError) -> PlanOutcome {
        let known = KnownChanges(history: history, pending: pending)
        let order = ReadyOrder(fresh: fresh, queue: queue, known: known, newlyKnown: pending?.hash, dropping: dropped)
        let waiting = order.changes
        var checker = ChangeChecker(ops: ops, actors: actors, known: known)
        actors = ActorTable()  // the checker's copy is then the only one, and grows in place
        defer { actors = checker.actors }
        checker.reserveCapacity(order.order.count)
        let outcome = checker.check(waiting, in: order.order)
        let ready = outcome.ready
        /// Refuses the change at `position` of `ready`.
        func refuse(at position: Int, _ error: AutomergeError) throws(AutomergeError) -> PlanOutcome {
            let index = order.order[position]
            if order.isQueued(index) { return .refusedQueuedChange(waiting[index].hash) }
            throw error
        }
        // Checked in order, a change before the one a check refused that is
        // not canonical is refused first.
        if let position = outcome.firstNonCanonical {
            return try refuse(at: position, ChangeChecker.notCanonical(waiting[order.order[position]]))
        }
        if let error = outcome.error { return try refuse(at: ready.count, error) }
        if refusesMisorderedMarks,
           let position = ReceivedMarkOrder.firstMisordered(in: ready, appliedTo: ops, actors: checker.actors, created: checker.created) {
            return try refuse(at: position, .invalidChange("change \(waiting[order.order[position]].hash) puts a mark's end anchor "
                + "before its begin anchor; a document holding it could not be loaded again"))
        }
        return .ready(Plan(ready: ready, order: order, dropped: dropped))
    }

    /// Applies the ops of `change`, checked as `checked`, after those
    /// before it (its record in the history is apart).
    private mutating func applyOps(of checked: CheckedChange, change: DecodedChange) {
        for index in checked.ops.indices { ops.apply(checked: checked.ops[index]) }
        // The change's own max op counts, not only the ops it holds: a change
        // with few or no ops may still claim a higher one, and a later local
        // change must start above it (as in Rust, which takes the max op from
        // the change), or the saved document fails its max-op check on load.
        // Found by fuzzing: Corpus/changes/empty-change-max-op-ignored.
        ops.maxOp = max(ops.maxOp, change.stored.maxOp)
    }
}

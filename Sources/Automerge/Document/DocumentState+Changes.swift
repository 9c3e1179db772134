/// Receiving changes: from another document, from encoded bytes, or from a
/// file being loaded. Changes whose dependencies are missing wait in a
/// queue; ready ones apply in Kahn order with first-in-first-out ties, as
/// Rust's change queue does (the order decides how a save lists them).
extension DocumentState {
    /// Applies `changes`, queueing those that wait for dependencies.
    /// Returns the changes applied, in order.
    @discardableResult
    mutating func apply(_ changes: [DecodedChange]) throws(AutomergeError) -> [DecodedChange] {
        commit()
        var batchHashes = Set<ChangeHash>()
        var batchIds = Set<ChangeIdentity>()
        var batch: [DecodedChange] = []
        let queued = Set(queue.map(\.hash))
        let queuedIds = Set(queue.map { ChangeIdentity(actor: $0.stored.actors[0], sequence: $0.stored.sequence) })
        for change in changes {
            if history.contains(change.hash) || queued.contains(change.hash) || batchHashes.contains(change.hash) { continue }
            guard let author = change.stored.actors.first else { throw .invalidChange("change has no author") }
            let identity = ChangeIdentity(actor: author, sequence: change.stored.sequence)
            if let index = ops.actors.index(of: author), history.hash(actor: index, sequence: change.stored.sequence) != nil {
                throw .duplicateSequenceNumber(actor: author, sequence: change.stored.sequence)
            }
            if batchIds.contains(identity) || queuedIds.contains(identity) {
                throw .duplicateSequenceNumber(actor: author, sequence: change.stored.sequence)
            }
            batchHashes.insert(change.hash)
            batchIds.insert(identity)
            batch.append(change)
        }
        queue.append(contentsOf: batch)
        let ready = popReadyChanges()
        var applied: [DecodedChange] = []
        for change in ready {
            try applyOne(change)
            applied.append(change)
        }
        return applied
    }

    /// Removes and returns the queued changes whose dependencies are met,
    /// in topological order (Kahn's algorithm, FIFO among the ready).
    private mutating func popReadyChanges() -> [DecodedChange] {
        var unsatisfied = [Int](repeating: 0, count: queue.count)
        var waiting: [ChangeHash: [Int]] = [:]
        for (index, change) in queue.enumerated() {
            for dependency in change.stored.dependencies where !history.contains(dependency) {
                unsatisfied[index] += 1
                waiting[dependency, default: []].append(index)
            }
        }
        var ready = unsatisfied.indices.filter { unsatisfied[$0] == 0 }
        var head = 0
        var order: [Int] = []
        while head < ready.count {
            let index = ready[head]
            head += 1
            order.append(index)
            for dependent in waiting.removeValue(forKey: queue[index].hash) ?? [] {
                unsatisfied[dependent] -= 1
                if unsatisfied[dependent] == 0 { ready.append(dependent) }
            }
        }
        let taken = Set(order)
        let result = order.map { queue[$0] }
        queue = queue.indices.filter { !taken.contains($0) }.map { queue[$0] }
        return result
    }

    /// Applies one change whose dependencies are present. The change is
    /// checked first, so a bad change leaves the document untouched.
    private mutating func applyOne(_ change: DecodedChange) throws(AutomergeError) {
        // New actors go straight into the table (a copy of it per change
        // made one change chunk per actor quadratic) and are taken back if
        // the change fails.
        let knownActors = ops.actors.count
        let author: UInt32, changeOps: [ChangeOp]
        do {
            (author, changeOps) = try ChangeCodec.changeOps(of: change.stored, actors: &ops.actors)
            try check(change, author: author, ops: changeOps)
        } catch {
            ops.actors.removeActors(after: knownActors)
            throw error
        }
        // Mark anchors are checked once the change is in place; the op set
        // as it was (an O(1) copy until written) is put back if they fail.
        let markedObjects = refusesMisorderedMarks ? Set(changeOps.lazy.filter { $0.action == .mark }.map(\.object)) : []
        let unmarked = markedObjects.isEmpty ? nil : ops
        for op in changeOps {
            do { try ops.apply(op) } catch {
                if let unmarked { ops = unmarked }
                ops.actors.removeActors(after: knownActors)
                throw .invalidChange("change \(change.hash): \(error)")
            }
        }
        if let unmarked {
            for object in markedObjects {
                guard let index = ops.objectIndex(of: object), !ops.markAnchorsInOrder(objectAt: index) else { continue }
                ops = unmarked
                ops.actors.removeActors(after: knownActors)
                // Found by fuzzing: Corpus/load/received-mark-end-before-begin.
                throw .invalidChange("change \(change.hash) puts a mark's end anchor before its begin anchor; "
                    + "a document holding it could not be loaded again")
            }
        }
        // The change's own max op counts, not only the ops it holds: a change
        // with few or no ops may still claim a higher one, and a later local
        // change must start above it (as in Rust, which takes the max op from
        // the change), or the saved document fails its max-op check on load.
        // Found by fuzzing: Corpus/changes/empty-change-max-op-ignored.
        ops.maxOp = max(ops.maxOp, change.stored.maxOp)
        addToHistory(change.stored, hash: change.hash, bytes: change.bytes, actor: author)
    }

    /// The checks a change passes before any of its ops is applied.
    private func check(_ change: DecodedChange, author: UInt32, ops changeOps: [ChangeOp]) throws(AutomergeError) {
        let expectedSequence = history.lastSequence(of: author) + 1
        guard change.stored.sequence == expectedSequence else {
            throw .invalidChange("change \(change.hash) has sequence \(change.stored.sequence), expected \(expectedSequence)")
        }
        try checkMaxOp(change, author: author)
        try validate(changeOps)
        if !change.isCanonical { try checkCanonical(change, author: author, ops: changeOps, actors: ops.actors) }
    }

    /// A change's max op may not fall below that of its author's previous
    /// change or of any dependency: a saved document with such a change
    /// would fail the loader's max-op check (Rust's too), so it could never
    /// be opened again (found by fuzzing: Corpus/changes/max-op-below-dependency).
    private func checkMaxOp(_ change: DecodedChange, author: UInt32) throws(AutomergeError) {
        let maxOp = change.stored.maxOp
        var floor: UInt64 = 0
        if let previous = history.hash(actor: author, sequence: change.stored.sequence - 1) {
            floor = history.record(previous)?.maxOp ?? 0
        }
        for dependency in change.stored.dependencies {
            floor = max(floor, history.record(dependency)?.maxOp ?? 0)
        }
        guard maxOp >= floor else {
            throw .invalidChange("change \(change.hash) has max op \(maxOp), below the \(floor) of a change it follows")
        }
    }

    /// Checks that every op of a change targets an object and element that
    /// exists (or that the change itself creates earlier).
    ///
    /// Also that every predecessor names an op on the same property: a
    /// document stores predecessors only as the successors of those ops, so
    /// any other predecessor (or a delete with none, or an insert with some)
    /// would vanish on save, and the saved document would then fail its own
    /// heads check on load (found by fuzzing: Corpus/load/saved-document-fails-heads-check).
    private func validate(_ changeOps: [ChangeOp]) throws(AutomergeError) {
        var created: [OpId: ObjectKind] = [:]
        var createdDepth: [OpId: Int] = [:]
        var newElements: [OpId: Set<OpId>] = [:]
        var newOpsAt: [PropertyOfObject: Set<OpId>] = [:]
        for op in changeOps {
            let kind: ObjectKind
            if let object = ops.object(op.object) { kind = object.kind } else if let made = created[op.object] { kind = made } else {
                throw .invalidChange("op \(op.id.counter) targets a missing object")
            }
            switch op.key {
            case .map:
                guard !kind.isSequence else { throw .invalidChange("map key in a sequence") }
            case .element(let element):
                guard kind.isSequence else { throw .invalidChange("element id in a map") }
                if !element.isRoot || !op.insert {
                    let exists = ops.object(op.object)?.sequence.contains(element) ?? false
                    guard exists || newElements[op.object]?.contains(element) == true else {
                        throw .invalidChange("op \(op.id.counter) refers to a missing list element")
                    }
                }
                if op.insert { newElements[op.object, default: []].insert(op.id) }
            }
            if let made = op.action.objectType {
                guard ops.object(op.id) == nil, created[op.id] == nil else { throw .invalidChange("object created twice") }
                created[op.id] = made
                let depth = (ops.object(op.object)?.depth ?? createdDepth[op.object] ?? 0) + 1
                guard depth <= OpSet.maxDepth else { throw .invalidChange("objects nested more than \(OpSet.maxDepth) deep") }
                createdDepth[op.id] = depth
            }
            try validatePredecessors(of: op, newOpsAt: &newOpsAt)
        }
    }

    /// A received change chunk must be byte for byte what a document chunk
    /// rebuilds for it (actors, predecessors and dependencies in canonical
    /// order, canonical column encodings, deletes without values). A change
    /// in any other form would get another hash once saved in a document,
    /// and the saved document would fail its own heads check on load.
    private func checkCanonical(_ change: DecodedChange, author: UInt32, ops changeOps: [ChangeOp], actors: ActorTable) throws(AutomergeError) {
        let rebuilt = ChangeCodec.encode(
            CollectionOfOne(changeOps), author: author, sequence: change.stored.sequence, startOp: change.stored.startOp,
            dependencies: change.stored.dependencies, time: change.stored.time, message: change.stored.message,
            extraBytes: change.stored.extraBytes, actors: actors)
        guard rebuilt.encoded.hash == change.hash else {
            throw .invalidChange("change \(change.hash) is not in canonical form (a document could not store it as it is)")
        }
    }

    private func validatePredecessors(of op: ChangeOp, newOpsAt: inout [PropertyOfObject: Set<OpId>]) throws(AutomergeError) {
        if op.insert {
            guard op.predecessors.isEmpty else { throw .invalidChange("op \(op.id.counter) inserts but has predecessors") }
            newOpsAt[PropertyOfObject(object: op.object, key: .element(op.id)), default: []].insert(op.id)
            return
        }
        if op.action == .delete, op.predecessors.isEmpty { throw .invalidChange("op \(op.id.counter) deletes nothing") }
        let property = PropertyOfObject(object: op.object, key: op.key)
        if !op.predecessors.isEmpty {
            var existing = newOpsAt[property] ?? []
            if let object = ops.object(op.object) {
                switch op.key {
                case .map(let key):
                    if let ops = object.entries[key] { for old in ops { existing.insert(old.id) } }
                case .element(let element):
                    if let location = object.sequence.location(of: element) {
                        let target = object.sequence[location]
                        existing.insert(target.id)
                        for update in target.updates { existing.insert(update.id) }
                    }
                }
            }
            guard op.predecessors.count == Set(op.predecessors).count, op.predecessors.allSatisfy(existing.contains) else {
                throw .invalidChange("op \(op.id.counter) has a predecessor that is not an op on the same property")
            }
        }
        if op.action != .delete { newOpsAt[property, default: []].insert(op.id) }
    }
}

/// A key or element of one object.
private struct PropertyOfObject: Hashable {
    let object: OpId
    let key: OpKey
}

/// An (actor, sequence number) pair: unique among a document's changes.
struct ChangeIdentity: Hashable {
    let actor: ActorId
    let sequence: UInt64
}

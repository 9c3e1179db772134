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
        for change in changes {
            if history.contains(change.hash) || queued.contains(change.hash) || batchHashes.contains(change.hash) { continue }
            guard let author = change.stored.actors.first else { throw .invalidChange("change has no author") }
            let identity = ChangeIdentity(actor: author, sequence: change.stored.sequence)
            if let index = ops.actors.index(of: author), history.hash(actor: index, sequence: change.stored.sequence) != nil {
                throw .duplicateSequenceNumber(actor: author, sequence: change.stored.sequence)
            }
            if batchIds.contains(identity) || queue.contains(where: { ChangeIdentity(actor: $0.stored.actors[0], sequence: $0.stored.sequence) == identity }) {
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
        var actors = ops.actors
        let (author, changeOps) = try ChangeCodec.changeOps(of: change.stored, actors: &actors)
        let expectedSequence = history.lastSequence(of: author) + 1
        guard change.stored.sequence == expectedSequence else {
            throw .invalidChange("change \(change.hash) has sequence \(change.stored.sequence), expected \(expectedSequence)")
        }
        try validate(changeOps)
        ops.actors = actors
        for op in changeOps {
            do { try ops.apply(op) } catch {
                throw .invalidChange("change \(change.hash): \(error)")
            }
        }
        addToHistory(change.stored, hash: change.hash, bytes: change.bytes, actor: author)
    }

    /// Checks that every op of a change targets an object and element that
    /// exists (or that the change itself creates earlier).
    private func validate(_ changeOps: [ChangeOp]) throws(AutomergeError) {
        var created: [OpId: ObjectKind] = [:]
        var newElements: [OpId: Set<OpId>] = [:]
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
            }
        }
    }
}

/// An (actor, sequence number) pair: unique among a document's changes.
struct ChangeIdentity: Hashable {
    let actor: ActorId
    let sequence: UInt64
}

/// A received change, decoded into the op set's terms and checked: applying
/// its ops, after the changes checked before it, cannot fail.
struct CheckedChange {
    /// Where the change is in the changes the checker was given (a batch
    /// holds each change once, not a copy of it per stage).
    let position: Int
    /// The author's op-set actor index.
    let author: UInt32
    let ops: [ChangeOp]
}

/// Checks received changes, in the order they will apply, against the
/// document as it is and the changes checked before them, which are not
/// applied yet: a batch is applied only once all of it has passed, so a
/// refused change leaves the document untouched (see ``DocumentState/apply(_:)``).
struct ChangeChecker {
    /// The document's op set, read only.
    private let ops: OpSet
    private let encoding: TextEncoding
    private(set) var known: KnownChanges
    /// The op set's actor table with the actors of the checked changes added.
    private(set) var actors: ActorTable
    /// Objects the checked changes create, by kind and depth.
    private(set) var created: [OpId: ObjectKind] = [:]
    private var createdDepth: [OpId: Int] = [:]
    /// Elements the checked changes insert, each with its sequence's
    /// position in ``newElementSequences``; and ops they put on a property
    /// (deletes excluded), with its position in ``newOpProperties``.
    ///
    /// Tables of op ids, each of which is in one sequence or property,
    /// rather than a set per sequence and property: hashing every element
    /// and op into sets (SipHash, freshly seeded) was a fifth of checking a
    /// batch of typed text.
    private var newElements = OpIdTable()
    private var newElementSequences: [OpId] = []
    private var newOps = OpIdTable()
    private var newOpProperties: [PropertyOfObject] = []

    /// A checker against `ops` whose actor table is `actors` (the op
    /// set's own, which the caller may have taken out of it so that the
    /// checks extend it in place).
    init(ops: OpSet, actors: ActorTable, known: KnownChanges) {
        self.ops = ops
        self.encoding = ops.encoding
        self.known = known
        self.actors = actors
    }

    init(ops: OpSet, known: KnownChanges) {
        self.init(ops: ops, actors: ops.actors, known: known)
    }

    /// Makes room for `count` changes to check.
    mutating func reserveCapacity(_ count: Int) { known.reserveCapacity(count) }

    /// Checks `change`, which must be causally ready given the changes
    /// checked before it, and counts it as applied. Its canonical form is
    /// checked apart, for a whole batch at once (``check(_:in:)``).
    mutating func check(_ change: DecodedChange, at position: Int) throws(AutomergeError) -> CheckedChange {
        let (author, changeOps) = try ChangeCodec.changeOps(of: change.stored, actors: &actors)
        let expectedSequence = known.lastSequence(of: author) + 1
        guard change.stored.sequence == expectedSequence else {
            throw .invalidChange("change \(change.hash) has sequence \(change.stored.sequence), expected \(expectedSequence)")
        }
        try checkMaxOp(change, author: author)
        try validate(changeOps)
        known.add(change.hash, actor: author, sequence: change.stored.sequence, maxOp: change.stored.maxOp)
        return CheckedChange(position: position, author: author, ops: changeOps)
    }

    /// A change's ops must start above its author's previous change's, and
    /// its max op may not fall below that of any dependency: a saved document with such a change
    /// would fail the loader's max-op check (Rust's too), so it could never
    /// be opened again (found by fuzzing: Corpus/changes/max-op-below-dependency).
    private func checkMaxOp(_ change: DecodedChange, author: UInt32) throws(AutomergeError) {
        let maxOp = change.stored.maxOp
        var floor: UInt64 = 0
        if let previous = known.hash(actor: author, sequence: change.stored.sequence - 1) {
            floor = known.maxOp(of: previous) ?? 0
            // The author's ops are counted upwards, change after change: ops
            // below its previous change's max op would reuse op ids the
            // document holds (found by fuzzing: Corpus/sync/received-change-reuses-own-op-ids).
            guard change.stored.startOp > floor else {
                throw .invalidChange("change \(change.hash) starts at op \(change.stored.startOp), not above the max op \(floor) of its author's previous change")
            }
        }
        for dependency in change.stored.dependencies {
            floor = max(floor, known.maxOp(of: dependency) ?? 0)
        }
        guard maxOp >= floor else {
            throw .invalidChange("change \(change.hash) has max op \(maxOp), below the \(floor) of a change it follows")
        }
    }

    /// Checks that every op of a change targets an object and element that
    /// exists (or that the change itself, or one checked before it, creates
    /// earlier), and that no object is nested deeper than ``OpSet/maxDepth``.
    ///
    /// Also that every predecessor names an op on the same property: a
    /// document stores predecessors only as the successors of those ops, so
    /// any other predecessor (or a delete with none, or an insert with some)
    /// would vanish on save, and the saved document would then fail its own
    /// heads check on load (found by fuzzing: Corpus/load/saved-document-fails-heads-check).
    private mutating func validate(_ changeOps: [ChangeOp]) throws(AutomergeError) {
        for op in changeOps {
            // The object is read in place, by index: an ObjectState copy retains all it holds.
            let existing = ops.objectIndex(of: op.object)
            let kind: ObjectKind
            if let existing { kind = ops.objects[existing].kind } else if let made = created[op.object] { kind = made } else {
                throw .invalidChange("op \(op.id.counter) targets a missing object")
            }
            switch op.key {
            case .map:
                guard !kind.isSequence else { throw .invalidChange("map key in a sequence") }
                // Only sequence elements are inserted; a map op cannot keep the flag (found by fuzzing:
                // Corpus/decode/insert-on-a-map-key).
                guard !op.insert else { throw .invalidChange("op \(op.id.counter) inserts on a map key") }
            case .element(let element):
                guard kind.isSequence else { throw .invalidChange("element id in a map") }
                if !element.isRoot || !op.insert {
                    let exists = existing.map { ops.sequences[Int(ops.objects[$0].body)].contains(element) } ?? false
                    guard exists || isNewElement(element, of: op.object) else {
                        throw .invalidChange("op \(op.id.counter) refers to a missing list element")
                    }
                }
                if op.insert {
                    newElements[op.id] = try Self.position(appending: op.object, to: &newElementSequences)
                }
            }
            if let made = op.action.objectType {
                guard ops.objectIndex(of: op.id) == nil, created[op.id] == nil else { throw .invalidChange("object created twice") }
                let depth = (existing.map { ops.objects[$0].depth } ?? createdDepth[op.object] ?? 0) + 1
                guard depth <= OpSet.maxDepth else { throw .invalidChange("objects nested more than \(OpSet.maxDepth) deep") }
                created[op.id] = made
                createdDepth[op.id] = depth
            }
            try validatePredecessors(of: op, objectIndex: existing)
        }
    }

    /// An inserted element's only op so far is its insert, whose id is the
    /// element's: inserts are found through ``newElements`` and not
    /// recorded per property (a set per inserted element was most of the
    /// cost of checking typed text).
    private mutating func validatePredecessors(of op: ChangeOp, objectIndex: Int?) throws(AutomergeError) {
        if op.insert {
            guard op.predecessors.isEmpty else { throw .invalidChange("op \(op.id.counter) inserts but has predecessors") }
            return
        }
        if op.action == .delete, op.predecessors.isEmpty { throw .invalidChange("op \(op.id.counter) deletes nothing") }
        let property = PropertyOfObject(object: op.object, key: op.key)
        if !op.predecessors.isEmpty {
            // Each predecessor is looked up where it must be, rather than
            // gathering every op of the property first: a counter's key
            // keeps all its increments, and gathering them made each
            // increment cost as many hash inserts as the key had ops.
            func isOpOfProperty(_ id: OpId) -> Bool {
                if let position = newOps[id], newOpProperties[Int(position)] == property { return true }
                if case .element(let element) = op.key, id == element, isNewElement(element, of: op.object) {
                    return true
                }
                guard let objectIndex else { return false }
                switch op.key {
                case .map(let key):
                    return ops.withEntries(ofObjectAt: objectIndex) { $0.pointee[key]?.contains { $0.id == id } ?? false }
                case .element(let element):
                    return ops.withSequence(ofObjectAt: objectIndex) { sequence in
                        guard let location = sequence.pointee.location(of: element) else { return false }
                        return sequence.pointee.element(at: location, isOrUpdatedBy: id)
                    }
                }
            }
            guard op.predecessors.count < 2 || op.predecessors.count == Set(op.predecessors).count,
                  op.predecessors.allSatisfy(isOpOfProperty) else {
                throw .invalidChange("op \(op.id.counter) has a predecessor that is not an op on the same property")
            }
        }
        if op.action != .delete { newOps[op.id] = try Self.position(appending: property, to: &newOpProperties) }
    }

    /// Whether the checked changes insert `element` into `sequence`.
    private func isNewElement(_ element: OpId, of sequence: OpId) -> Bool {
        guard let position = newElements[element] else { return false }
        return newElementSequences[Int(position)] == sequence
    }

    /// Appends `value` to `list` and returns its position, as an op-id table holds it.
    private static func position<Value>(appending value: Value, to list: inout [Value]) throws(AutomergeError) -> Int32 {
        // Memory runs out long before, but a table position is 31 bits.
        guard list.count < Int32.max else { throw .invalidChange("too many ops in one batch of changes") }
        list.append(value)
        return Int32(list.count - 1)
    }
}

extension ChangeChecker {
    /// From this many changes to check, the proofs of canonical form run on
    /// another core beside the checks (``CanonicalProofPipeline``).
    static let concurrentCanonicalThreshold = 64

    /// What checking a batch found.
    struct BatchOutcome {
        /// The changes that passed their checks, in order, up to the first that failed.
        var ready: [CheckedChange] = []
        /// The error of the change after `ready`, if one failed.
        var error: AutomergeError?
        /// The position in `ready` of the first change that is not byte for
        /// byte what a document chunk rebuilds for it (see ``CanonicalChangeForm``).
        var firstNonCanonical: Int?
        /// How many actors were handed to the proofs on another core: each
        /// once, however many batches (a count for the linear-work tests).
        var actorsHandedOver = 0
    }

    /// Checks the changes of `changes` at the positions `order`, one after
    /// another, and proves the ones that pass canonical, as checking and
    /// proving each in turn would: the first change refused is the one
    /// that order refuses, whichever check refuses it. From
    /// ``concurrentCanonicalThreshold`` changes the proofs run on another
    /// core while the checks go on; checking stops once a proof has failed.
    mutating func check(_ changes: [DecodedChange], in order: [Int]) -> BatchOutcome {
        var outcome = BatchOutcome()
        outcome.ready.reserveCapacity(order.count)
        guard order.count >= Self.concurrentCanonicalThreshold else {
            checkInOrder(changes, order, into: &outcome, handingOverTo: nil)
            var form = CanonicalChangeForm()
            outcome.firstNonCanonical = Self.firstNonCanonical(in: outcome.ready[...], of: changes, actors: actors, form: &form)
            return outcome
        }
        let firstNonCanonical = CanonicalProofPipeline.firstFailure(checking: { proofs in
            checkInOrder(changes, order, into: &outcome, handingOverTo: proofs)
        }, of: changes)
        outcome.firstNonCanonical = firstNonCanonical
        return outcome
    }

    /// Checks changes in `order` into `outcome` until one fails, handing
    /// them over to `proofs` a batch at a time, and stops early once a
    /// proof has failed.
    private mutating func checkInOrder(
        _ changes: [DecodedChange], _ order: [Int], into outcome: inout BatchOutcome, handingOverTo proofs: CanonicalProofPipeline?
    ) {
        var handedOver = 0
        var actorsTheProofsHave = 0
        /// Hands over what is checked and not yet handed over; false once a proof has failed.
        func handOver() -> Bool {
            guard let proofs, handedOver < outcome.ready.count else { return true }
            let newActors = Array(actors.actors[actorsTheProofsHave...])
            actorsTheProofsHave = actors.count
            outcome.actorsHandedOver += newActors.count
            defer { handedOver = outcome.ready.count }
            return proofs.handOver(Array(outcome.ready[handedOver...]), start: handedOver, newActors: newActors)
        }
        defer {
            _ = handOver()
            proofs?.finish()
        }
        for index in order {
            do {
                outcome.ready.append(try check(changes[index], at: index))
            } catch {
                outcome.error = error
                return
            }
            if outcome.ready.count - handedOver == CanonicalProofPipeline.batchSize, !handOver() { return }
        }
    }

    /// The position in `checked` of the first change that is not canonical,
    /// proven with `form` (whose buffers serve every proof); `actors` holds
    /// every actor the changes name.
    static func firstNonCanonical(
        in checked: ArraySlice<CheckedChange>, of changes: [DecodedChange], actors: ActorTable,
        form: inout CanonicalChangeForm
    ) -> Int? {
        checked.indices.first { position in
            !changes[checked[position].position].isCanonical
                && !form.matches(changes[checked[position].position], author: checked[position].author,
                                 ops: checked[position].ops, actors: actors)
        }
    }

    /// The error refusing a change that is not in canonical form.
    static func notCanonical(_ change: DecodedChange) -> AutomergeError {
        .invalidChange("change \(change.hash) is not in canonical form (a document could not store it as it is)")
    }
}

/// A key or element of one object.
private struct PropertyOfObject: Equatable {
    let object: OpId
    let key: OpKey
}

/// Applying ops to the op set: received ones (``ChangeOp``s, checked or
/// not) and the fast paths of local edits. Every refusal is decided before
/// anything changes (``placement(of:objectAt:)``), so a refused op leaves
/// no trace.
extension OpSet {
    /// Why an op cannot apply.
    enum ApplyError: Error, Equatable {
        case missingObject(OpId)
        case missingElement(OpId)
        case notASequence(OpId)
        case notAMap(OpId)
        case duplicateObject(OpId)
        case nestedTooDeep(OpId)
    }

    /// Applies one op. Ops of a change must be applied in order, and a change
    /// only after its dependencies. A refused op changes nothing.
    mutating func apply(_ change: ChangeOp) throws(ApplyError) {
        guard let index = objectIndex(of: change.object) else { throw .missingObject(change.object) }
        try apply(change, objectAt: index)
    }

    /// Applies an op of a change that ``ChangeChecker`` passed, which
    /// therefore cannot be refused: the caller has already changed the
    /// document's queue and history bookkeeping, and an error here would
    /// leave it half applied. Should the checker and the op set ever
    /// disagree (a bug), the op is left out, changing nothing, and the
    /// disagreement is returned; debug builds stop at it.
    @discardableResult
    mutating func apply(checked change: ChangeOp) -> ApplyError? {
        let refusal: ApplyError?
        if let index = objectIndex(of: change.object) {
            switch placement(of: change, objectAt: index) {
            case .success(let placement):
                perform(change, objectAt: index, placement: placement, keyHash: nil)
                return nil
            case .failure(let error): refusal = error
            }
        } else {
            refusal = .missingObject(change.object)
        }
        assertionFailure("a checked op was refused: \(String(describing: refusal))")
        return refusal
    }

    /// Applies one op to the object at `index` of the object table, and
    /// returns where it went (for a local op's transaction). `keyHash`: the
    /// ``MapEntries/hash(_:)`` of a map op's key, if the caller has it
    /// already. A delete of a map key that never had ops changes nothing
    /// and has no place (nil). A refused op changes nothing.
    @discardableResult
    mutating func apply(_ change: ChangeOp, objectAt index: Int, keyHash: UInt64? = nil) throws(ApplyError) -> PendingOp.Target? {
        precondition(objects[index].id == change.object, "op applied to the wrong object")
        let placement = try placement(of: change, objectAt: index).get()
        return perform(change, objectAt: index, placement: placement, keyHash: keyHash)
    }

    /// Where an op goes in its object, found before anything changes.
    enum Placement {
        case mapKey(MapKey)
        case insert(after: OpId, at: SequenceTree.Location)
        case update(OpId, at: SequenceTree.Location)
    }

    /// Where `change` goes in the object at `index`, or why it cannot
    /// apply. Every refusal is decided here, so that applying changes
    /// nothing unless it succeeds.
    func placement(of change: ChangeOp, objectAt index: Int) -> Result<Placement, ApplyError> {
        if change.action.objectType != nil {
            if objects[index].depth >= Self.maxDepth { return .failure(.nestedTooDeep(change.id)) }
            if objectIndex(of: change.id) != nil { return .failure(.duplicateObject(change.id)) }
        }
        let kind = objects[index].kind
        switch change.key {
        case .map(let key):
            return kind.isSequence ? .failure(.notAMap(change.object)) : .success(.mapKey(key))
        case .element(let element):
            guard kind.isSequence else { return .failure(.notASequence(change.object)) }
            let body = Int(objects[index].body)
            if change.insert {
                guard let location = sequences[body].insertionLocation(after: element, id: change.id, actors: actors) else {
                    return .failure(.missingElement(element))
                }
                return .success(.insert(after: element, at: location))
            }
            guard let location = sequences[body].location(of: element) else { return .failure(.missingElement(element)) }
            return .success(.update(element, at: location))
        }
    }

    /// Applies `change` at `placement`, which ``placement(of:objectAt:)`` found.
    @discardableResult
    private mutating func perform(_ change: ChangeOp, objectAt index: Int, placement: Placement, keyHash: UInt64?) -> PendingOp.Target? {
        maxOp = max(maxOp, UInt64(change.id.counter))
        let successor = Successor(id: change.id, increment: change.incrementAmount)
        let target: PendingOp.Target?
        switch placement {
        case .mapKey(let key):
            target = applyToMap(objectAt: index, key: key, hash: keyHash ?? MapEntries.hash(key), change: change, successor: successor)
                .map { .mapKey(object: Int32(index), key: Int32($0)) }
        case .insert(let reference, let location):
            insertElement(objectAt: index, after: reference, at: location, id: change.id, action: change.action, value: change.value,
                          expand: change.expand, markName: change.markName)
            target = .insertedElement(object: Int32(index), reference: reference)
        case .update(let element, let location):
            applyUpdate(objectAt: index, at: location, change: change, successor: successor)
            target = .element(object: Int32(index), element: element)
        }
        if let created = change.action.objectType {
            let key: OpKey = change.insert ? .element(change.id) : change.key
            addObject(id: change.id, kind: created, parent: change.object, keyInParent: key, depth: objects[index].depth + 1)
        }
        return target
    }

    /// Applies a map op; returns the position of its key, nil for a delete
    /// of a key that never had ops (which changes nothing).
    private mutating func applyToMap(objectAt index: Int, key: MapKey, hash: UInt64, change: ChangeOp, successor: Successor) -> Int? {
        // A put that overwrites nothing: the common new key, added with its
        // op in one step.
        if change.predecessors.isEmpty && change.action != .delete {
            return maps[Int(objects[index].body)].add(change.storedOp, to: key, hash: hash, actors: actors)
        }
        return maps[Int(objects[index].body)].apply(change, successor: successor, to: key, hash: hash, actors: actors)
    }

    /// Inserts a new element (an insert op that makes no object) at
    /// `location` of the sequence at `index` of the object table.
    private mutating func insertElement(objectAt index: Int, after reference: OpId, at location: SequenceTree.Location, id: OpId,
                                        action: OpAction, value: Primitive, expand: Bool, markName: String?, units: Int32? = nil) {
        sequences[Int(objects[index].body)].insert(
            SequenceElement(id: id, reference: reference, action: action, value: value, expand: expand, markName: markName,
                            successors: SuccessorList()),
            after: reference, at: location, units: units, actors: actors)
    }

    /// Applies a local put of a scalar to a map key unless the key has
    /// visible ops, which are returned instead (see
    /// ``MapEntries/addUnlessVisible(put:value:to:hash:actors:)``): what
    /// ``apply(_:objectAt:keyHash:)`` does for a put that overwrites
    /// nothing, without a ``ChangeOp``.
    mutating func applyLocalMapSet(objectAt index: Int, key: MapKey, hash: UInt64, put id: OpId, value: Primitive) -> MapEntries.LocalPut {
        let outcome = maps[bodyPosition(ofObjectAt: index, isSequence: false)].addUnlessVisible(put: id, value: value, to: key, hash: hash, actors: actors)
        if case .added = outcome { maxOp = max(maxOp, UInt64(id.counter)) }
        return outcome
    }

    /// Applies a local insert of a value or mark anchor (no object made)
    /// from its fields: what ``apply(_:objectAt:keyHash:)`` does for such
    /// an op, without the ``ChangeOp`` a local edit would build only to
    /// destroy it. `units`: the new
    /// element's width, if the caller has it.
    mutating func applyLocalInsert(objectAt index: Int, after reference: OpId, id: OpId, action: OpAction, value: Primitive,
                                   expand: Bool, markName: String?, units: Int32? = nil) throws(ApplyError) {
        precondition(objects[index].kind.isSequence && action.objectType == nil, "not a plain insert into a sequence")
        guard let location = sequences[Int(objects[index].body)].insertionLocation(after: reference, id: id, actors: actors) else {
            throw .missingElement(reference)
        }
        maxOp = max(maxOp, UInt64(id.counter))
        insertElement(objectAt: index, after: reference, at: location, id: id, action: action, value: value, expand: expand,
                      markName: markName, units: units)
    }

    /// The visible element a local delete at a unit of a sequence would
    /// delete (see ``deleteCandidate(objectAt:coveringUnit:)``).
    struct DeleteCandidate {
        let location: SequenceTree.Location
        /// The element's id (its insert op's).
        let element: OpId
        /// The unit the element starts at, and its width.
        let start: Int
        let units: Int
        /// Whether the element's one op is its insert and nothing succeeds
        /// it: the delete's one predecessor is then the element itself, and
        /// ``applyLocalDelete(of:objectAt:id:)`` applies it.
        let isPlain: Bool
    }

    /// The visible element covering `unit` of the sequence at `index` of
    /// the object table, read in place.
    func deleteCandidate(objectAt index: Int, coveringUnit unit: Int) -> DeleteCandidate? {
        withSequence(ofObjectAt: index) { sequence in
            guard let (location, start) = sequence.pointee.element(coveringUnit: unit) else { return nil }
            return sequence.pointee.withElement(at: location) { element in
                DeleteCandidate(location: location, element: element.pointee.id, start: start, units: Int(element.pointee.units),
                                isPlain: element.pointee.updates.isEmpty && element.pointee.successors.isEmpty)
            }
        }
    }

    /// Applies a local delete `id` of a plain element found by
    /// ``deleteCandidate(objectAt:coveringUnit:)`` (nothing changed since):
    /// what ``apply(_:objectAt:keyHash:)`` does for that delete, without
    /// the element's visible ops as an array, a ``ChangeOp`` and a second
    /// search for the element by id (the deletes of the editing trace).
    mutating func applyLocalDelete(of candidate: DeleteCandidate, objectAt index: Int, id: OpId) {
        precondition(candidate.isPlain, "an element with updates or successors takes the general path")
        maxOp = max(maxOp, UInt64(id.counter))
        sequences[Int(objects[index].body)].modify(at: candidate.location) { element in
            assert(element.id == candidate.element, "the candidate's element moved")
            element.deleteInsertOp(by: id)
        }
    }

    private mutating func applyUpdate(objectAt index: Int, at location: SequenceTree.Location, change: ChangeOp, successor: Successor) {
        let body = Int(objects[index].body)
        let actors = self.actors
        sequences[body].modify(at: location) { element in
            for pred in change.predecessors {
                _ = element.addSuccessor(successor, to: pred, actors: actors)
            }
            if change.action != .delete {
                let op = change.storedOp
                element.updates.insert(op, at: Op.sortedPosition(of: op, in: element.updates, actors: actors))
            }
        }
    }
}

extension OpSet: InvariantChecked {
    /// Verifies every invariant of the op set (see ``Invariant``): the
    /// object table, each object's place under its parent, each map's
    /// entries and each sequence's tree, and the ids and order of every
    /// stored op. Throws the first broken one, naming the object. O(ops).
    func checkInvariants() throws(InvariantViolation) {
        guard let root = objects.first, root.id == .root, root.kind == .map, root.keyInParent == nil, root.depth == 0 else {
            throw broken(.rootObjectFirst, "the first of \(objects.count) objects is \(objects.first.map { "\($0.id.label) (\($0.kind))" } ?? "missing")")
        }
        do { try objectPositions.checkInvariants() } catch { throw error.within("object table") }
        try checkBodies()
        for index in objects.indices {
            let object = objects[index]
            do {
                try checkPlace(of: object, at: index)
                try checkContents(of: object)
            } catch {
                throw error.within("object \(object.id.label) (\(object.kind), at \(index))")
            }
        }
    }

    /// Debug builds, in a task that asked for checks (``InvariantChecks``):
    /// checks the invariants and reports a violation. Otherwise nothing.
    @inline(__always)
    func checkInvariantsIfEnabled() {
        #if DEBUG
        guard let report = InvariantChecks.onViolation else { return }
        do { try checkInvariants() } catch { report(error) }
        #endif
    }

    private func broken(_ invariant: Invariant, _ detail: String) -> InvariantViolation {
        InvariantViolation(invariant: invariant, structure: "", detail: detail)
    }

    /// The object's entry in the object table and under its parent.
    private func checkPlace(of object: ObjectState, at index: Int) throws(InvariantViolation) {
        guard index > 0 else { return }
        guard objectIndex(of: object.id) == index else {
            throw broken(.objectFindable, "its id resolves to \(objectIndex(of: object.id).map(String.init) ?? "nothing")")
        }
        // Earlier in the table: paths walk up through parents, and this keeps them from cycling.
        guard let parentIndex = objectIndex(of: object.parent), parentIndex < index,
              objects[parentIndex].depth + 1 == object.depth else {
            throw broken(.parentPrecedesObject, "parent \(object.parent.label) at \(objectIndex(of: object.parent).map(String.init) ?? "none"), depth \(object.depth)")
        }
        let parent = objects[parentIndex]
        let maker: Op?
        switch object.keyInParent {
        case .map(let key)?:
            maker = parent.kind.isSequence ? nil : entries(of: parent)[key]?.first { $0.id == object.id }
        case .element(let element)?:
            // The parent's tree was checked before (parents come first), so its index can be read.
            maker = parent.kind.isSequence ? sequence(of: parent).location(of: element).flatMap { location in
                let holder = sequence(of: parent)[location]
                return holder.id == object.id ? holder.insertOp : holder.updates.first { $0.id == object.id }
            } : nil
        case nil:
            maker = nil
        }
        guard let maker, maker.action.objectType == object.kind else {
            throw broken(.keyInParentHoldsMakeOp,
                         "key \(object.keyInParent.map(String.init(describing:)) ?? "none") in \(parent.id.label) holds \(maker.map { "\($0.action)" } ?? "no op") with its id")
        }
    }

    /// Every object has a body of its kind of its own, and every body
    /// belongs to an object.
    private func checkBodies() throws(InvariantViolation) {
        var mapOwners = [Int](repeating: -1, count: maps.count)
        var sequenceOwners = [Int](repeating: -1, count: sequences.count)
        for index in objects.indices {
            let object = objects[index]
            let body = Int(object.body)
            let claimed = object.kind.isSequence ? sequenceOwners.indices.contains(body) && sequenceOwners[body] < 0
                : mapOwners.indices.contains(body) && mapOwners[body] < 0
            guard claimed else {
                throw broken(.bodyPerObject, "object \(object.id.label) (\(object.kind)) names body \(body) of \(object.kind.isSequence ? sequences.count : maps.count), or one another object has")
            }
            if object.kind.isSequence { sequenceOwners[body] = index } else { mapOwners[body] = index }
        }
        guard !mapOwners.contains(-1), !sequenceOwners.contains(-1) else {
            throw broken(.bodyPerObject, "a body no object names (\(maps.count) maps, \(sequences.count) sequences)")
        }
    }

    /// The object's map entries or sequence tree, and the ops they hold.
    private func checkContents(of object: ObjectState) throws(InvariantViolation) {
        if object.kind.isSequence {
            let sequence = sequence(of: object)
            let width = sequence.width
            guard width.isText == (object.kind == .text), width.encoding == encoding else {
                throw broken(.contentsMatchKind, "text width: \(width.isText), encoding \(width.encoding)")
            }
            try sequence.checkInvariants()
            try sequence.checkMinimumIds(actors: actors)
            // Leaf by leaf (inner nodes hold no elements: the tree's check saw to that).
            for leaf in sequence.nodes.indices where sequence.nodes[leaf].isLeaf {
                for element in sequence.withLeafElements(Int32(leaf), { Array($0) }) { try checkOps(of: element) }
            }
        } else {
            let entries = entries(of: object)
            try entries.checkInvariants()
            for (key, ops) in entries {
                var previous: OpId?
                for op in ops {
                    try checkStored(op)
                    try checkOrder(previous, op.id, in: "key \(key.string.debugDescription)")
                    previous = op.id
                }
            }
        }
    }

    /// The insert op of `element` and its updates: ids, order, keys.
    private func checkOps(of element: SequenceElement) throws(InvariantViolation) {
        try checkStored(element.id, successors: element.successors)
        var previous: OpId?
        for update in element.updates {
            guard update.key == .element(element.id), !update.insert, update.action != .delete else {
                throw broken(.opStoredUnderItsKey, "op \(update.id.label) (\(update.action)) is stored as an update of \(element.id.label)")
            }
            try checkStored(update)
            try checkOrder(previous, update.id, in: "element \(element.id.label)")
            previous = update.id
        }
    }

    private func checkStored(_ op: Op) throws(InvariantViolation) {
        try checkStored(op.id, successors: op.successors)
    }

    /// A stored op's id and successors: known actors, counters within
    /// ``maxOp`` (new local ops start above it), successors in order.
    private func checkStored(_ id: OpId, successors: SuccessorList) throws(InvariantViolation) {
        try checkKnown(id)
        var previous: OpId?
        for index in 0..<successors.count {
            let successor = successors[index].id
            try checkKnown(successor)
            try checkOrder(previous, successor, in: "the successors of \(id.label)")
            previous = successor
        }
    }

    private func checkKnown(_ id: OpId) throws(InvariantViolation) {
        guard Int(id.actor) < actors.count, id.counter >= 1, UInt64(id.counter) <= maxOp else {
            throw broken(.opIdKnown, "op \(id.label) with \(actors.count) actors and max op \(maxOp)")
        }
    }

    /// `id`, known (``ActorTable/precedes(_:_:)`` indexes by actor), must
    /// come after `previous` in op id order. `holder` is built only for a report.
    private func checkOrder(_ previous: OpId?, _ id: OpId, in holder: @autoclosure () -> String) throws(InvariantViolation) {
        guard let previous, !actors.precedes(previous, id) else { return }
        throw broken(.opsSorted, "in \(holder()), \(previous.label) comes before \(id.label)")
    }
}

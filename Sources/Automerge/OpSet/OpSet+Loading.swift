/// Building an op set straight from a document chunk's op rows.
///
/// A document stores every op in its final place: objects by id, map keys in
/// order, sequence elements in document order followed by their updates,
/// each op with its successors. Rebuilding from those rows is a single pass
/// with appends (duplicate op ids were already rejected when the changes
/// were rebuilt), instead of replaying every change through the RGA
/// integration that placed them (which is what makes loading fast). Rows are
/// still checked: an op in an unknown object, a key of the wrong kind, an
/// update of a missing element or an out-of-range id is a typed error.
extension OpSet {
    static func load(_ document: StoredDocument, encoding: TextEncoding) throws(LoadError) -> OpSet {
        try document.ops.rows.withUnsafeBufferPointer { rows throws(LoadError) in
            try load(document, rows: rows, encoding: encoding)
        }
    }

    private static func load(
        _ document: StoredDocument, rows: UnsafeBufferPointer<StoredOpRows.Row>, encoding: TextEncoding
    ) throws(LoadError) -> OpSet {
        var opSet = OpSet(encoding: encoding)
        let actorIndices = opSet.actors.intern(contentsOf: document.actors)
        let stored = document.ops

        func opId(_ stored: StoredOpId, row: Int) throws(LoadError) -> OpId {
            guard stored.actor >= 0, stored.actor < actorIndices.count else {
                throw .actorIndexOutOfRange(column: "op", row: row, index: UInt64(stored.actor))
            }
            guard stored.counter >= 1, stored.counter <= maxOpCounter else { throw .opCounterOverflow(column: "op", row: row) }
            return OpId(counter: UInt32(stored.counter), actor: actorIndices[stored.actor])
        }

        var increments: [OpId: Int64] = [:]
        for row in rows.indices where rows[row].action == OpAction.increment.rawValue {
            guard let id = rows[row].id else { throw .missingColumn(column: "id") }
            increments[try opId(id, row: row)] = ChangeOp.amount(of: stored.value(of: rows[row]))
        }

        var currentObject = OpId.root
        var currentIndex = 0
        for row in rows.indices {
            let op = rows[row]
            guard let storedId = op.id else { throw .missingColumn(column: "id") }
            let id = try opId(storedId, row: row)
            let object = try op.object.map { (s: StoredOpId) throws(LoadError) in try opId(s, row: row) } ?? .root
            if object != currentObject {
                guard let index = opSet.objectIndex(of: object) else { throw .invalidObjectId(row: row) }
                currentObject = object
                currentIndex = index
            }
            guard let action = OpAction(rawValue: op.action) else {
                throw .unknownAction(row: row, action: UInt64(op.action))
            }
            var successors = SuccessorList()
            if op.groupCount == 1 {
                // The common case (a deleted character) without an array.
                let successorId = try opId(stored.groupIds[Int(op.groupStart)], row: row)
                successors.insert(Successor(id: successorId, increment: increments.isEmpty ? nil : increments[successorId]),
                                  actors: opSet.actors)
            } else if op.groupCount > 1 {
                var list: [Successor] = []
                list.reserveCapacity(Int(op.groupCount))
                for successor in stored.groupIds[op.groupRange] {
                    let successorId = try opId(successor, row: row)
                    list.append(Successor(id: successorId, increment: increments[successorId]))
                }
                list.sort { opSet.actors.precedes($0.id, $1.id) }
                successors = SuccessorList(sorted: list)
            }
            let value = stored.value(of: op)
            let markName = op.markName == 0 ? nil : stored.markName(of: op)
            let kind = opSet.objects[currentIndex].kind
            let mapKey = stored.mapKey(of: op).map(MapKey.init)
            // The element a sequence op targets: an object a put makes there lives at it.
            var target = OpId.root
            if let key = mapKey {
                guard !kind.isSequence else { throw .invalidKey(row: row, reason: "a map key in a list or text") }
                guard !op.insert else { throw .invalidKey(row: row, reason: "an insert on a map key") }
                let mapOp = Op(id: id, action: action, insert: false, key: .map(key), value: value,
                               expand: op.expand, markName: markName, successors: successors)
                _ = opSet.objects[currentIndex].entries.add(mapOp, to: key, hash: MapEntries.hash(key), actors: opSet.actors)
            } else {
                guard kind.isSequence else { throw .invalidKey(row: row, reason: "an element id in a map") }
                target = try op.element.map { (s: StoredOpId) throws(LoadError) in try opId(s, row: row) } ?? .root
                if op.insert {
                    opSet.objects[currentIndex].sequence.append(
                        SequenceElement(id: id, reference: target, action: action, value: value, expand: op.expand,
                                        markName: markName, successors: successors),
                        after: target)
                } else {
                    let update = Op(id: id, action: action, insert: false, key: .element(target), value: value,
                                    expand: op.expand, markName: markName, successors: successors)
                    var found = opSet.objects[currentIndex].sequence.recentLocation(of: target)
                    if found == nil {
                        opSet.objects[currentIndex].sequence.ensureIndexed()
                        found = opSet.objects[currentIndex].sequence.location(of: target)
                    }
                    guard let location = found else { throw .invalidKey(row: row, reason: "an update of a missing element") }
                    let actors = opSet.actors
                    opSet.objects[currentIndex].sequence.modify(at: location) { $0.updates.appendSorted(update, actors: actors) }
                }
            }
            if let created = action.objectType {
                guard opSet.objectIndex(of: id) == nil else { throw .duplicateOpId(row: row) }
                let key: OpKey = op.insert ? .element(id) : mapKey.map { .map($0) } ?? .element(target)
                var state = ObjectState(id: id, kind: created, parent: object, keyInParent: key, encoding: encoding)
                // The same nesting bound as received changes (OpSet.maxDepth): reads recurse per level.
                state.depth = opSet.objects[currentIndex].depth + 1
                guard state.depth <= OpSet.maxDepth else { throw .invalidObjectId(row: row) }
                if created.isSequence { state.sequence.beginBulkLoad() }
                opSet.addObject(state)
            }
            opSet.maxOp = max(opSet.maxOp, UInt64(id.counter))
        }
        for change in document.changes { opSet.maxOp = max(opSet.maxOp, change.maxOp) }
        for index in opSet.objects.indices where opSet.objects[index].kind.isSequence {
            opSet.objects[index].sequence.endBulkLoad()
        }
        return opSet
    }
}

extension Array where Element == Op {
    /// Adds `op`, keeping op id order. It is nearly always the newest op
    /// (loaded rows arrive sorted, a local put is the newest op), appended:
    /// `insert` at the end takes Array's slower general path.
    mutating func appendSorted(_ op: Op, actors: ActorTable) {
        let position = Op.sortedPosition(of: op, in: self, actors: actors)
        if position == endIndex { append(op) } else { insert(op, at: position) }
    }
}

extension Op {
    /// Where `op` goes among `ops`, sorted by op id: the newest op goes
    /// last, so the last op is checked first (rows of a hostile file, or
    /// concurrent ops, may go earlier).
    static func sortedPosition<Ops: RandomAccessCollection<Op>>(of op: Op, in ops: Ops, actors: ActorTable) -> Ops.Index {
        guard let last = ops.last, actors.precedes(op.id, last.id) else { return ops.endIndex }
        return ops.firstIndex { actors.precedes(op.id, $0.id) } ?? ops.endIndex
    }
}

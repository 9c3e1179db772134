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
        // Rows are read in place (`rows[row].field`): a row copied out of the
        // array retained and released each of its strings and arrays.
        try document.ops.withUnsafeBufferPointer { rows throws(LoadError) in
            try load(document, rows: rows, encoding: encoding)
        }
    }

    private static func load(
        _ document: StoredDocument, rows: UnsafeBufferPointer<StoredOp>, encoding: TextEncoding
    ) throws(LoadError) -> OpSet {
        var opSet = OpSet(encoding: encoding)
        let actorIndices = document.actors.map { opSet.actors.intern($0) }

        func opId(_ stored: StoredOpId, row: Int) throws(LoadError) -> OpId {
            guard stored.actor >= 0, stored.actor < actorIndices.count else {
                throw .actorIndexOutOfRange(column: "op", row: row, index: UInt64(stored.actor))
            }
            guard stored.counter >= 1, stored.counter <= maxOpCounter else { throw .opCounterOverflow(column: "op", row: row) }
            return OpId(counter: UInt32(stored.counter), actor: actorIndices[stored.actor])
        }

        var increments: [OpId: Int64] = [:]
        for row in rows.indices where rows[row].action == UInt64(OpAction.increment.rawValue) {
            guard let id = rows[row].id else { throw .missingColumn(column: "id") }
            increments[try opId(id, row: row)] = ChangeOp.amount(of: rows[row].value)
        }

        var currentObject = OpId.root
        var currentIndex = 0
        for row in rows.indices {
            let stored = rows.baseAddress! + row
            guard let storedId = stored.pointee.id else { throw .missingColumn(column: "id") }
            let id = try opId(storedId, row: row)
            let object = try stored.pointee.object.map { (s: StoredOpId) throws(LoadError) in try opId(s, row: row) } ?? .root
            if object != currentObject {
                guard let index = opSet.objectIndex(of: object) else { throw .invalidObjectId(row: row) }
                currentObject = object
                currentIndex = index
            }
            guard stored.pointee.action <= 7, let action = OpAction(rawValue: UInt8(stored.pointee.action)) else {
                throw .unknownAction(row: row, action: stored.pointee.action)
            }
            var successors = SuccessorList()
            if stored.pointee.successors.count == 1 {
                // The common case (a deleted character) without an array.
                let successorId = try opId(stored.pointee.successors[0], row: row)
                successors.insert(Successor(id: successorId, increment: increments.isEmpty ? nil : increments[successorId]),
                                  actors: opSet.actors)
            } else if !stored.pointee.successors.isEmpty {
                var list: [Successor] = []
                list.reserveCapacity(stored.pointee.successors.count)
                for successor in stored.pointee.successors {
                    let successorId = try opId(successor, row: row)
                    list.append(Successor(id: successorId, increment: increments[successorId]))
                }
                if list.count > 1 { list.sort { opSet.actors.precedes($0.id, $1.id) } }
                successors = SuccessorList(sorted: list)
            }
            let kind = opSet.objects[currentIndex].kind
            switch stored.pointee.key {
            case .map(let string):
                guard !kind.isSequence else { throw .invalidKey(row: row, reason: "a map key in a list or text") }
                let op = Op(id: id, action: action, insert: false, key: .map(MapKey(string)), value: stored.pointee.value,
                            expand: stored.pointee.expand, markName: stored.pointee.markName, successors: successors)
                opSet.objects[currentIndex].entries[MapKey(string), default: []].appendSorted(op, actors: opSet.actors)
            case .element(let reference):
                guard kind.isSequence else { throw .invalidKey(row: row, reason: "an element id in a map") }
                let target = try reference.map { (s: StoredOpId) throws(LoadError) in try opId(s, row: row) } ?? .root
                if stored.pointee.insert {
                    opSet.objects[currentIndex].sequence.append(SequenceElement(
                        id: id, reference: target, action: action, value: stored.pointee.value,
                        expand: stored.pointee.expand, markName: stored.pointee.markName, successors: successors))
                } else {
                    let op = Op(id: id, action: action, insert: false, key: .element(target), value: stored.pointee.value,
                                expand: stored.pointee.expand, markName: stored.pointee.markName, successors: successors)
                    var found = opSet.objects[currentIndex].sequence.recentLocation(of: target)
                    if found == nil {
                        opSet.objects[currentIndex].sequence.ensureIndexed()
                        found = opSet.objects[currentIndex].sequence.location(of: target)
                    }
                    guard let location = found else { throw .invalidKey(row: row, reason: "an update of a missing element") }
                    let actors = opSet.actors
                    opSet.objects[currentIndex].sequence.modify(at: location) { $0.updates.appendSorted(op, actors: actors) }
                }
            }
            if let created = action.objectType {
                guard opSet.objectIndex(of: id) == nil else { throw .duplicateOpId(row: row) }
                let key: OpKey = stored.pointee.insert ? .element(id) : (stored.pointee.key.mapKey.map { .map(MapKey($0)) } ?? .element(id))
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

extension StoredKey {
    var mapKey: String? {
        if case .map(let key) = self { return key }
        return nil
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

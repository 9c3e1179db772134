/// One op of an open transaction: where the op set
/// holds it, which is all the commit needs to read it back. The op set
/// never removes an op, so the place stays valid until the commit.
struct PendingOp: Sendable {
    /// Where an op went in the op set.
    enum Target: Sendable {
        /// A map op, among the ops of the map's key at position `key` in the
        /// map's key order (``MapEntries/subscript(opsAt:)``). A delete is only a
        /// successor of those ops.
        case mapKey(object: Int32, key: Int32)
        /// An insert into a list or text: the element whose id is the op's,
        /// inserted after `reference` (the op's key, which the element may
        /// not hold; see ``SequenceElement/reference``).
        case insertedElement(object: Int32, reference: OpId)
        /// A put, increment or delete of the list or text element `element`:
        /// among its updates, or (a delete) only a successor of its ops.
        case element(object: Int32, element: OpId)
    }

    let target: Target
    let action: OpAction
}

extension OpSet {
    /// Where the last op read back was, so that the next one, usually
    /// beside it (typing, deleting a run), is found without the id index.
    fileprivate struct ReadBackCursor {
        fileprivate var object = -1
        fileprivate var location: SequenceTree.Location?

        init() {}

        fileprivate init(object: Int, location: SequenceTree.Location) {
            self.object = object
            self.location = location
        }
    }

    /// Hands each op of `pending` to `sink`, read back, in order: the ops
    /// of a transaction whose first op has counter `startOp` and whose
    /// author is `actor`, with the predecessors already known by position.
    func readBack(_ pending: ChunkedList<PendingOp>, startOp: UInt64, actor: UInt32, knownPredecessors: [Int: [OpId]],
                  into sink: inout some TransactionOpSink) {
        var cursor = ReadBackCursor()
        // One array, emptied for each op, holds its predecessors: a fresh
        // one per delete was a malloc and a free each.
        var predecessors: [OpId] = []
        var counter = UInt32(startOp)
        var position = 0
        for chunk in pending.chunks {
            for op in chunk {
                readBack(op, id: OpId(counter: counter, actor: actor), into: &sink,
                         known: knownPredecessors[position], predecessors: &predecessors, cursor: &cursor)
                position += 1
                // Wrapping: after an op with the last counter (2^32 - 1) there is no next.
                counter &+= 1
            }
        }
    }

    /// Reads back the transaction op `id` from where it was applied: its
    /// fields from its stored form (an element for an insert, an op among
    /// a key's or an element's ops otherwise), read in place, and its
    /// predecessors from the ops that hold it as a successor (exactly the
    /// ops it overwrote), in op id order.
    private func readBack(_ pending: PendingOp, id: OpId, into sink: inout some TransactionOpSink, known: [OpId]?,
                          predecessors: inout [OpId], cursor: inout ReadBackCursor) {
        predecessors.removeAll(keepingCapacity: true)
        if let known {
            // In op id order, as a search of the ops would find them.
            let actors = self.actors
            predecessors.append(contentsOf: known)
            predecessors.sort { actors.precedes($0, $1) }
        }
        let action = pending.action
        switch pending.target {
        case .mapKey(let objectIndex, let keyIndex):
            let object = withObject(at: Int(objectIndex)) { $0.pointee.id }
            withEntries(ofObjectAt: Int(objectIndex)) { entries in
                let keyOps = entries.pointee[opsAt: Int(keyIndex)]
                let stored = known == nil ? Self.find(id, among: keyOps, predecessors: &predecessors)
                    : Op.sortedIndex(of: id, in: keyOps, actors: actors).map { keyOps[$0] }
                sink.take(id: id, object: object, key: .map(keyOps.key),
                          insert: false, action: action, value: action == .delete ? .null : stored?.value ?? .null,
                          expand: false, markName: nil, predecessors: predecessors)
            }
        case .insertedElement(let objectIndex, let reference):
            let object = withObject(at: Int(objectIndex)) { $0.pointee.id }
            withSequence(ofObjectAt: Int(objectIndex)) { sequence in
                let location = readBackLocation(of: id, in: sequence.pointee, objectAt: Int(objectIndex), cursor: &cursor)
                sequence.pointee.withElement(at: location) { element in
                    sink.take(id: id, object: object, key: .element(reference), insert: true,
                              action: action, value: element.pointee.value, expand: element.pointee.expand,
                              markName: element.pointee.markName, predecessors: predecessors)
                }
            }
        case .element(let objectIndex, let elementId):
            let object = withObject(at: Int(objectIndex)) { $0.pointee.id }
            withSequence(ofObjectAt: Int(objectIndex)) { sequence in
                let location = readBackLocation(of: elementId, in: sequence.pointee, objectAt: Int(objectIndex), cursor: &cursor)
                sequence.pointee.withElement(at: location) { element in
                    let update: Op?
                    if known == nil {
                        if element.pointee.successors.contains(id) { predecessors.append(element.pointee.id) }
                        update = Self.find(id, among: element.pointee.updates, predecessors: &predecessors)
                    } else {
                        update = Op.sortedIndex(of: id, in: element.pointee.updates, actors: actors).map { element.pointee.updates[$0] }
                    }
                    sink.take(id: id, object: object, key: .element(elementId), insert: false, action: action,
                              value: action == .delete ? .null : update?.value ?? .null, expand: update?.expand ?? false,
                              markName: update?.markName, predecessors: predecessors)
                }
            }
        }
    }

    /// The op `id` among `ops` (nil for a delete, which is stored only as
    /// successors), appending to `predecessors` the ops it overwrote.
    private static func find(_ id: OpId, among ops: some Sequence<Op>, predecessors: inout [OpId]) -> Op? {
        var found: Op?
        for op in ops {
            if op.id == id { found = op }
            if op.successors.contains(id) { predecessors.append(op.id) }
        }
        return found
    }

    /// Where the element `id` of `tree` (the sequence at `objectIndex`) is,
    /// looked for beside the cursor first.
    private func readBackLocation(of id: OpId, in tree: SequenceTree, objectAt objectIndex: Int,
                                  cursor: inout ReadBackCursor) -> SequenceTree.Location {
        if cursor.object == objectIndex, let previous = cursor.location {
            if tree.id(at: previous) == id { return previous }
            // Typing reads the next element; deleting backwards, or typing
            // after a deletion, the one before.
            if let next = tree.successor(of: previous), tree.id(at: next) == id {
                cursor.location = next
                return next
            }
            if previous.index > 0 {
                let before = SequenceTree.Location(leaf: previous.leaf, index: previous.index - 1)
                if tree.id(at: before) == id {
                    cursor.location = before
                    return before
                }
            }
        }
        guard let location = tree.location(of: id) else {
            preconditionFailure("an op of the open transaction is missing from the op set")
        }
        cursor = ReadBackCursor(object: objectIndex, location: location)
        return location
    }
}

/// What receives the ops of a transaction read back from the op set
/// (``OpSet/readBack(_:startOp:actor:knownPredecessors:into:)``), one op's fields at a time: the commit's
/// row writer (tests collect ``ChangeOp`` values).
protocol TransactionOpSink {
    mutating func take(id: OpId, object: OpId, key: OpKey, insert: Bool, action: OpAction, value: borrowing Primitive,
                       expand: Bool, markName: String?, predecessors: borrowing [OpId])
}

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
    /// Builds the op set of a document chunk from its rows as `feed` hands
    /// them over: block by block while they are decoded, or all at once.
    static func load(_ feed: OpRowFeed, encoding: TextEncoding) throws(LoadError) -> OpSet {
        var loader: RowLoader?
        var strings: [String] = []
        var consumed = 0
        while true {
            switch feed.next(after: consumed) {
            case .failed(let error):
                throw error
            case .rows(let window):
                if loader == nil { loader = RowLoader(actors: window.actors, encoding: encoding) }
                strings += window.newStrings
                try loader!.load(window.rows, from: consumed, groupIds: window.groupIds, strings: strings,
                                 valueBytes: window.valueBytes)
                consumed = window.rows.count
            case .opsDecoded(let actors, let ops):
                var rest = try takeLoader(&loader, actors: actors, encoding: encoding, loadingRest: ops, from: consumed)
                rest.endObjects()
                return rest.finish(changes: try feed.decodedDocument().changes)
            case .finished(let document):
                var rest = try takeLoader(&loader, actors: document.actors, encoding: encoding, loadingRest: document.ops,
                                          from: consumed)
                rest.endObjects()
                return rest.finish(changes: document.changes)
            }
        }
    }

    /// The loader, or a new one, having loaded the rows of `ops` from
    /// `start` on. Rows are fed only when none is an increment: a loader
    /// that took none yet has the increments to find. (Moved out of the
    /// optional, not copied: a second reference would make every write
    /// after copy what it writes to.)
    private static func takeLoader(
        _ loader: inout RowLoader?, actors: [ActorId], encoding: TextEncoding, loadingRest ops: StoredOpRows, from start: Int
    ) throws(LoadError) -> RowLoader {
        var rest = loader ?? RowLoader(actors: actors, encoding: encoding)
        let findsIncrements = loader == nil
        loader = nil
        try rest.load(ops, from: start, findingIncrements: findsIncrements)
        return rest
    }

    /// Builds an op set from document rows taken in order.
    private struct RowLoader {
        var opSet: OpSet
        let encoding: TextEncoding
        /// The op-set actor index of each document actor.
        let actorIndices: [UInt32]
        /// The amounts of the increment ops, by id: a successor that is one carries its amount.
        var increments: [OpId: Int64] = [:]
        var currentObject = OpId.root
        var currentIndex = 0
        /// The current object's position in the op set's maps or sequences.
        var currentBody = 0
        /// Where maps are packed as the rows leave them.
        var packedMaps = PackedMap.Blocks()
        /// Which objects (by index) the rows have left once: rows that come
        /// back to an object (out of order) do not pack and unpack its last
        /// leaf again at every switch.
        var left: [Bool] = []

        init(actors: [ActorId], encoding: TextEncoding) {
            opSet = OpSet(encoding: encoding)
            self.encoding = encoding
            actorIndices = opSet.actors.intern(contentsOf: actors)
        }

        func opId(_ stored: StoredOpId, row: Int) throws(LoadError) -> OpId {
            guard stored.actor >= 0, stored.actor < actorIndices.count else {
                throw .actorIndexOutOfRange(column: "op", row: row, index: UInt64(stored.actor))
            }
            guard stored.counter >= 1, stored.counter <= maxOpCounter else { throw .opCounterOverflow(column: "op", row: row) }
            return OpId(counter: UInt32(stored.counter), actor: actorIndices[stored.actor])
        }

        mutating func noteIncrements(in rows: UnsafeBufferPointer<StoredOpRows.Row>, valueBytes: ArraySlice<UInt8>) throws(LoadError) {
            for row in rows.indices where rows[row].action == OpAction.increment.rawValue {
                guard let id = rows[row].id else { throw .missingColumn(column: "id") }
                increments[try opId(id, row: row)] = ChangeOp.amount(of: StoredOpRows.value(of: rows[row], in: valueBytes))
            }
        }

        /// Adds the rows of `ops` from `start` on, first noting the
        /// increments among all of them if `findingIncrements`.
        mutating func load(_ ops: StoredOpRows, from start: Int, findingIncrements: Bool) throws(LoadError) {
            try ops.rows.withUnsafeBufferPointer { rows throws(LoadError) in
                try ops.groupIds.withUnsafeBufferPointer { groupIds throws(LoadError) in
                    if findingIncrements { try noteIncrements(in: rows, valueBytes: ops.valueBytes) }
                    try load(rows, from: start, groupIds: groupIds, strings: ops.strings, valueBytes: ops.valueBytes)
                }
            }
        }

        /// Adds the rows from `start` on.
        mutating func load(
            _ rows: UnsafeBufferPointer<StoredOpRows.Row>, from start: Int, groupIds: UnsafeBufferPointer<StoredOpId>,
            strings: [String], valueBytes: ArraySlice<UInt8>
        ) throws(LoadError) {
            for row in start..<rows.count {
                try add(rows[row], row: row, groupIds: groupIds, strings: strings, valueBytes: valueBytes)
            }
        }

        @inline(__always)
        private mutating func add(
            _ op: StoredOpRows.Row, row: Int, groupIds: UnsafeBufferPointer<StoredOpId>, strings: [String],
            valueBytes: ArraySlice<UInt8>
        ) throws(LoadError) {
            guard let storedId = op.id else { throw .missingColumn(column: "id") }
            let id = try opId(storedId, row: row)
            let object = try op.object.map { (s: StoredOpId) throws(LoadError) in try opId(s, row: row) } ?? .root
            if object != currentObject {
                guard let index = opSet.objectIndex(of: object) else { throw .invalidObjectId(row: row) }
                // Rows come object by object: the one before is complete.
                if left.count <= currentIndex { left += repeatElement(false, count: currentIndex + 1 - left.count) }
                if !left[currentIndex] {
                    // Packed as soon as complete, so that the next object's
                    // allocations reuse what packing frees (packed at the
                    // end, the freed key lists stayed behind as holes).
                    if opSet.objects[currentIndex].kind.isSequence {
                        opSet.sequences[currentBody].packLastLeaf()
                    } else {
                        opSet.maps[currentBody].packKeys(into: &packedMaps)
                    }
                }
                left[currentIndex] = true
                currentObject = object
                currentIndex = index
                currentBody = Int(opSet.objects[index].body)
            }
            guard let action = OpAction(rawValue: op.action) else {
                throw .unknownAction(row: row, action: UInt64(op.action))
            }
            var successors = SuccessorList()
            if op.groupCount == 1 {
                // The common case (a deleted character) without an array.
                let successorId = try opId(groupIds[Int(op.groupStart)], row: row)
                successors.insert(Successor(id: successorId, increment: increments.isEmpty ? nil : increments[successorId]),
                                  actors: opSet.actors)
            } else if op.groupCount > 1 {
                var list: [Successor] = []
                list.reserveCapacity(Int(op.groupCount))
                for successor in groupIds[op.groupRange] {
                    let successorId = try opId(successor, row: row)
                    list.append(Successor(id: successorId, increment: increments[successorId]))
                }
                let actors = opSet.actors
                list.sort { actors.precedes($0.id, $1.id) }
                successors = SuccessorList(sorted: list)
            }
            let value = StoredOpRows.value(of: op, in: valueBytes)
            let markName = StoredOpRows.markName(of: op, in: strings)
            let kind = opSet.objects[currentIndex].kind
            let mapKey = StoredOpRows.mapKey(of: op, in: strings).map(MapKey.init)
            // The element a sequence op targets: an object a put makes there lives at it.
            var target = OpId.root
            if let key = mapKey {
                guard !kind.isSequence else { throw .invalidKey(row: row, reason: "a map key in a list or text") }
                guard !op.insert else { throw .invalidKey(row: row, reason: "an insert on a map key") }
                let mapOp = Op(id: id, action: action, insert: false, key: .map(key), value: value,
                               expand: op.expand, markName: markName, successors: successors)
                _ = opSet.maps[currentBody].add(mapOp, to: key, hash: MapEntries.hash(key), actors: opSet.actors)
            } else {
                guard kind.isSequence else { throw .invalidKey(row: row, reason: "an element id in a map") }
                target = try op.element.map { (s: StoredOpId) throws(LoadError) in try opId(s, row: row) } ?? .root
                if op.insert {
                    opSet.sequences[currentBody].append(
                        SequenceElement(id: id, reference: target, action: action, value: value, expand: op.expand,
                                        markName: markName, successors: successors),
                        after: target)
                } else {
                    try update(target, with: Op(id: id, action: action, insert: false, key: .element(target), value: value,
                                                expand: op.expand, markName: markName, successors: successors), row: row)
                }
            }
            if let created = action.objectType {
                guard opSet.objectIndex(of: id) == nil else { throw .duplicateOpId(row: row) }
                let key: OpKey = op.insert ? .element(id) : mapKey.map { .map($0) } ?? .element(target)
                // The same nesting bound as received changes (OpSet.maxDepth): reads recurse per level.
                let depth = opSet.objects[currentIndex].depth + 1
                guard depth <= OpSet.maxDepth else { throw .invalidObjectId(row: row) }
                let added = opSet.addObject(id: id, kind: created, parent: object, keyInParent: key, depth: depth)
                if created.isSequence { opSet.sequences[Int(opSet.objects[added].body)].beginBulkLoad() }
            }
            opSet.maxOp = max(opSet.maxOp, UInt64(id.counter))
        }

        /// Adds `update` to the sequence element `target` of the current object.
        private mutating func update(_ target: OpId, with update: Op, row: Int) throws(LoadError) {
            var found = opSet.sequences[currentBody].recentLocation(of: target)
            if found == nil {
                opSet.sequences[currentBody].ensureIndexed()
                found = opSet.sequences[currentBody].location(of: target)
            }
            guard let location = found else { throw .invalidKey(row: row, reason: "an update of a missing element") }
            let actors = opSet.actors
            opSet.sequences[currentBody].modify(at: location) { $0.updates.appendSorted(update, actors: actors) }
        }

        /// Ends the bulk load of every object: packs, indexes and sums them.
        /// A mutating method of a loader held in a variable, not part of the
        /// `consuming` ``finish(changes:)``: writing the objects there copied
        /// each one's storage, and the copies' frees left holes all over the
        /// heap the document keeps.
        mutating func endObjects() {
            for index in opSet.sequences.indices { opSet.sequences[index].endBulkLoad(actors: opSet.actors) }
            for index in opSet.maps.indices { opSet.maps[index].packKeys(into: &packedMaps) }
            packedMaps.trimLastBlock()
        }

        /// The op set, its max op raised to the changes' (an empty change
        /// may end above every op).
        consuming func finish(changes: [StoredChangeMetadata]) -> OpSet {
            for change in changes { opSet.maxOp = max(opSet.maxOp, change.maxOp) }
            return opSet
        }
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
        return firstPosition(notPreceding: op.id, in: ops, actors: actors)
    }

    /// Where the op `id` is in `ops` (sorted by ``ActorTable/precedes(_:_:)``),
    /// by binary search: a key overwritten a million times is searched in 20 steps.
    static func sortedIndex<Ops: RandomAccessCollection<Op>>(of id: OpId, in ops: Ops, actors: ActorTable) -> Ops.Index? {
        let position = firstPosition(notPreceding: id, in: ops, actors: actors)
        return position < ops.endIndex && ops[position].id == id ? position : nil
    }

    /// The first position in `ops` (sorted) whose op does not precede `id`.
    private static func firstPosition<Ops: RandomAccessCollection<Op>>(notPreceding id: OpId, in ops: Ops, actors: ActorTable) -> Ops.Index {
        var low = ops.startIndex
        var count = ops.count
        while count > 0 {
            let half = count / 2
            let middle = ops.index(low, offsetBy: half)
            if actors.precedes(ops[middle].id, id) {
                low = ops.index(after: middle)
                count -= half + 1
            } else {
                count = half
            }
        }
        return low
    }
}

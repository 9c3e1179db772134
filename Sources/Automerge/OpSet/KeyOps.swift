/// One map key with its ops, sorted by op id. Never empty: a key is added
/// with its first op.
///
/// Most keys only ever hold one op, a plain value put that nothing
/// overwrote, so that op is kept inline, without the fields a map op never
/// uses (its key is the key, stored once; no insert flag, mark name or
/// expand flag), and a second op (or one that does use them) moves the ops
/// into an array. A key then costs 64 bytes and no allocation of its own:
/// an array per key was a tenth of a put of a new key, and an inline
/// 96-byte ``Op`` beside the key was a third of the fresh memory a put
/// wrote.
///
/// A load packs a key's ops into bytes (``PackedKeyOps``) when they can
/// be; the key's first write turns them back into an array.
struct KeyOps: RandomAccessCollection, MutableCollection, Sendable {
    /// The one op of a key, without its key and the fields that only
    /// sequence ops use.
    private struct PlainOp: Sendable {
        var id: OpId
        var value: Primitive
        var action: OpAction
        var successors: SuccessorList

        init(id: OpId, value: Primitive, action: OpAction, successors: SuccessorList) {
            self.id = id
            self.value = value
            self.action = action
            self.successors = successors
        }

        /// `op` as a plain op, or nil if it uses a field a plain op lacks.
        init?(_ op: borrowing Op) {
            guard !op.insert, !op.expand, op.markName == nil else { return nil }
            id = op.id
            value = op.value
            action = op.action
            successors = op.successors
        }
    }

    private enum Storage: Sendable {
        case one(PlainOp)
        case many(ManyOps)
        /// A loaded key's ops as bytes (see ``PackedKeyOps``); a write unpacks them.
        case packed(PackedKeyOps)
    }

    /// The key.
    let key: MapKey
    private var storage: Storage

    /// `key` holding just a value put that nothing overwrote yet.
    init(key: MapKey, put id: OpId, value: Primitive) {
        self.key = key
        storage = .one(PlainOp(id: id, value: value, action: .set, successors: SuccessorList()))
    }

    /// `key` holding just `op`, whose key it is.
    init(_ op: Op) {
        guard case .map(let key) = op.key else { preconditionFailure("a map key's op with an element key") }
        self.key = key
        storage = PlainOp(op).map(Storage.one) ?? .many(ManyOps([op]))
    }

    /// `key` holding `ops`, which are its own, sorted and not empty.
    init(key: MapKey, ops: [Op]) {
        precondition(!ops.isEmpty, "a key without ops")
        self.key = key
        storage = ops.count == 1 ? PlainOp(ops[0]).map(Storage.one) ?? .many(ManyOps(ops)) : .many(ManyOps(ops))
    }

    var startIndex: Int { 0 }

    var endIndex: Int {
        switch storage {
        case .one: return 1
        case .many(let many): return many.ops.count
        case .packed(let ops): return ops.count
        }
    }

    subscript(position: Int) -> Op {
        get {
            switch storage {
            case .one(let op):
                precondition(position == 0, "index out of range")
                return Op(id: op.id, action: op.action, insert: false, key: .map(key), value: op.value, successors: op.successors)
            case .many(let many):
                return many.ops[position]
            case .packed(let ops):
                precondition(position >= 0 && position < ops.count, "index out of range")
                return ops.op(at: position, key: key)
            }
        }
        _modify {
            unpack()
            // The payload is moved out while it changes, so that the op's
            // successors (or the array) stay uniquely referenced and change
            // in place. An inline op is changed as an ``Op`` and kept inline
            // if it can be.
            switch storage {
            case .one:
                var op = self[position]
                storage = .many(.empty)
                defer { storage = PlainOp(op).map(Storage.one) ?? .many(ManyOps([op])) }
                yield &op
            case .many(var many):
                storage = .many(.empty)
                let wasVisible = many.ops[position].isVisible
                defer {
                    many.changed(at: position, wasVisible: wasVisible)
                    storage = .many(many)
                }
                yield &many.ops[position]
            case .packed:
                preconditionFailure("unpacked above")
            }
        }
    }

    /// Adds `op`, of this key, keeping op id order: nearly always the
    /// newest op, appended.
    mutating func appendSorted(_ op: Op, actors: ActorTable) {
        assert(op.key == .map(key), "an op of another key")
        let position = Op.sortedPosition(of: op, in: self, actors: actors)
        unpack()
        switch storage {
        case .one:
            let first = self[0]
            storage = .many(ManyOps(position == 0 ? [op, first] : [first, op]))
        case .many(var many):
            storage = .many(.empty)
            many.insert(op, at: position)
            storage = .many(many)
        case .packed:
            preconditionFailure("unpacked above")
        }
    }

    /// Records `successor` on each op whose id is in `predecessors`.
    private mutating func addSuccessor(_ successor: Successor, toOpsIn predecessors: [OpId], actors: ActorTable) {
        unpack()
        switch storage {
        case .one(var op):
            guard predecessors.contains(op.id) else { return }
            storage = .many(.empty)  // the successor list, uniquely held, grows in place
            op.successors.insert(successor, actors: actors)
            storage = .one(op)
        case .many(var many):
            storage = .many(.empty)
            // Each predecessor found by binary search (the ops are sorted):
            // a scan per op made a change overwriting one key n times cost n².
            // Listed twice, a predecessor still gets the successor once.
            func add(_ predecessor: OpId) {
                guard let i = Op.sortedIndex(of: predecessor, in: many.ops, actors: actors) else { return }
                let wasVisible = many.ops[i].isVisible
                many.ops[i].addSuccessor(successor, actors: actors)
                many.changed(at: i, wasVisible: wasVisible)
            }
            if predecessors.count == 1 { add(predecessors[0]) } else { Set(predecessors).forEach(add) }
            storage = .many(many)
        case .packed:
            preconditionFailure("unpacked above")
        }
    }

    /// The visible ops, in op id order: looked for past the ops known to
    /// be hidden, and only until all of them are found.
    var visibleOps: [Op] {
        guard case .many(let many) = storage else { return filter(\.isVisible) }
        return many.visibleOps
    }

    /// Packs the ops if they can be (see ``PackedKeyOps``): a load's last step.
    mutating func pack() {
        guard case .many(let many) = storage, let packed = PackedKeyOps(many.ops.array) else { return }
        storage = .packed(packed)
    }

    /// The most ops an insert into this key shifts (packed ops: all of
    /// them, which an insert unpacks first).
    var longestRun: Int {
        switch storage {
        case .one: return 1
        case .many(let many): return many.ops.longestRun
        case .packed(let ops): return ops.count
        }
    }

    /// Whether the ops are packed.
    var isPacked: Bool {
        if case .packed = storage { return true }
        return false
    }

    /// Turns packed ops back into an array, for a write.
    private mutating func unpack() {
        guard case .packed(let packed) = storage else { return }
        storage = .many(ManyOps(packed.ops(key: key)))
    }
}

extension KeyOps {
    /// Applies a map op of this key to its ops: the ops it overwrites get it
    /// as a successor, and it joins them unless it is a delete.
    mutating func apply(_ change: ChangeOp, successor: Successor, actors: ActorTable) {
        if !change.predecessors.isEmpty { addSuccessor(successor, toOpsIn: change.predecessors, actors: actors) }
        if change.action != .delete { appendSorted(change.storedOp, actors: actors) }
    }
}

/// A key's ops, sorted, with what finding the visible ones needs: the first
/// `hidden` are hidden, overwritten (which an op stays: successors are only
/// ever added), and `visible` of the others are visible. A key overwritten
/// n times, or a counter incremented n times, was otherwise scanned whole
/// at each write: n² work.
struct ManyOps: Sendable {
    var ops: SegmentedArray<Op>
    private(set) var hidden = 0
    private(set) var visible: Int

    static let empty = ManyOps()

    private init() {
        ops = SegmentedArray()
        visible = 0
    }

    init(_ ops: [Op]) {
        self.ops = SegmentedArray(ops)
        visible = ops.reduce(0) { $0 + ($1.isVisible ? 1 : 0) }
        skipHidden()
    }

    /// The visible ops, in order.
    var visibleOps: [Op] {
        var found: [Op] = []
        var index = hidden
        while found.count < visible, index < ops.count {
            if ops[index].isVisible { found.append(ops[index]) }
            index += 1
        }
        return found
    }

    mutating func insert(_ op: Op, at position: Int) {
        ops.insert(op, at: position)
        if op.isVisible { visible += 1 }
        if position < hidden { hidden = position }
        skipHidden()
        checkInvariants()
    }

    /// Brings the counts up to date after the op at `position` changed.
    mutating func changed(at position: Int, wasVisible: Bool) {
        let isVisible = ops[position].isVisible
        if wasVisible != isVisible { visible += isVisible ? 1 : -1 }
        if isVisible, position < hidden { hidden = position }
        skipHidden()
        checkInvariants()
    }

    private mutating func skipHidden() {
        while hidden < ops.count, !ops[hidden].isVisible { hidden += 1 }
    }

    /// Checked on keys of up to 64 ops only: a check of every op on every
    /// write would make the debug build's own loads quadratic.
    private func checkInvariants() {
        guard ops.count <= 64 else { return }
        assert(visible == ops.reduce(0) { $0 + ($1.isVisible ? 1 : 0) }, "visible count out of date")
        assert(!ops[..<hidden].contains(where: \.isVisible), "a visible op in the hidden prefix")
    }
}

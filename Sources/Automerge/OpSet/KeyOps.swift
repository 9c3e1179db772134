/// The ops of one map key, sorted by op id.
///
/// Most keys only ever hold one op (a put that nothing overwrote), so one
/// op is kept inline and a second one moves them into an array: a new key
/// then costs no allocation of its own (an array per key was a tenth of a
/// put of a new key, and its 144 bytes of heap were fresh pages to fault in).
struct KeyOps: RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral, Sendable {
    private enum Storage: Sendable {
        case one(Op)
        case many([Op])
    }

    private var storage: Storage

    /// A key holding just `op`.
    init(_ op: Op) { storage = .one(op) }

    /// A key holding `ops`, which must be sorted by op id.
    init(arrayLiteral ops: Op...) { storage = ops.count == 1 ? .one(ops[0]) : .many(ops) }

    var startIndex: Int { 0 }

    var endIndex: Int {
        switch storage {
        case .one: return 1
        case .many(let ops): return ops.count
        }
    }

    subscript(position: Int) -> Op {
        get {
            switch storage {
            case .one(let op):
                precondition(position == 0, "index out of range")
                return op
            case .many(let ops):
                return ops[position]
            }
        }
        _modify {
            // The payload is moved out while it changes, so that the op's
            // successors (or the array) stay uniquely referenced and change
            // in place.
            switch storage {
            case .one(var op):
                precondition(position == 0, "index out of range")
                storage = .many([])
                defer { storage = .one(op) }
                yield &op
            case .many(var ops):
                storage = .many([])
                defer { storage = .many(ops) }
                yield &ops[position]
            }
        }
    }

    /// Adds `op`, keeping op id order: nearly always the newest op, appended.
    mutating func appendSorted(_ op: Op, actors: ActorTable) {
        let position = Op.sortedPosition(of: op, in: self, actors: actors)
        switch storage {
        case .one(let first):
            storage = .many(position == 0 ? [op, first] : [first, op])
        case .many(var ops):
            storage = .many([])
            if ops.isEmpty {
                storage = .one(op)
            } else {
                if position == ops.count { ops.append(op) } else { ops.insert(op, at: position) }
                storage = .many(ops)
            }
        }
    }
}

extension KeyOps {
    /// Applies a map op to the ops of its key: the ops it overwrites get it
    /// as a successor, and it joins them unless it is a delete.
    mutating func apply(_ change: ChangeOp, successor: Successor, actors: ActorTable) {
        if !change.predecessors.isEmpty {
            for i in indices where change.predecessors.contains(self[i].id) {
                self[i].addSuccessor(successor, actors: actors)
            }
        }
        if change.action != .delete { appendSorted(change.storedOp, actors: actors) }
    }
}

/// One object of the document: where it lives and its ops.
struct ObjectState: Sendable {
    let id: OpId
    let kind: ObjectKind
    /// The containing object (root for the root itself).
    let parent: OpId
    /// The key or element id in `parent` that holds this object; nil for the root.
    let keyInParent: OpKey?
    /// How many objects contain this one (0 for the root).
    var depth = 0
    /// Map and table objects: the ops of each key, sorted by op id.
    var entries = MapEntries()
    /// List and text objects: the elements in order.
    var sequence: SequenceTree

    init(id: OpId, kind: ObjectKind, parent: OpId, keyInParent: OpKey?, encoding: TextEncoding) {
        self.id = id
        self.kind = kind
        self.parent = parent
        self.keyInParent = keyInParent
        self.sequence = SequenceTree(width: WidthRule(isText: kind == .text, encoding: encoding))
    }
}

/// An op as a change carries it, with document-level op ids: the unit the
/// op set applies, whether it was made here or received.
struct ChangeOp: Sendable, Equatable {
    var id: OpId
    var object: OpId
    var key: OpKey
    var insert: Bool
    var action: OpAction
    var value: Primitive
    var predecessors: [OpId]
    var expand: Bool = false
    var markName: String? = nil

    var storedOp: Op {
        Op(id: id, action: action, insert: insert, key: key, value: value, expand: expand, markName: markName)
    }

    /// The amount of an increment op.
    var incrementAmount: Int64? {
        guard action == .increment else { return nil }
        return Self.amount(of: value)
    }

    /// The amount an increment's value adds (uint and int are both allowed).
    static func amount(of value: Primitive) -> Int64 {
        switch value {
        case .int(let v): return v
        case .uint(let v): return Int64(truncatingIfNeeded: v)
        case .counter(let v): return v
        default: return 0
        }
    }
}

extension Op: Equatable {
    static func == (lhs: Op, rhs: Op) -> Bool {
        lhs.id == rhs.id && lhs.action == rhs.action && lhs.insert == rhs.insert && lhs.key == rhs.key
            && lhs.value == rhs.value && lhs.expand == rhs.expand && lhs.markName == rhs.markName
            && lhs.successors == rhs.successors
    }
}

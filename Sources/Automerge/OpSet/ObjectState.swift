/// One object of the document: where it lives, and where its ops are.
///
/// The ops themselves live beside the object table, in the op set's
/// ``OpSet/maps`` (maps and tables) or ``OpSet/sequences`` (lists and
/// texts), at ``body``: a map carries no sequence tree and a sequence no
/// key table, and the table's entries stay small (a document of 12,000
/// small objects spent 232 bytes an object on entries that held both).
struct ObjectState: Sendable {
    let id: OpId
    /// The containing object (root for the root itself).
    let parent: OpId
    /// The key or element id in `parent` that holds this object; nil for the root.
    let keyInParent: OpKey?
    let kind: ObjectKind
    /// Packed beside the kind (``OpSet/maxDepth`` fits): the entry takes 40 bytes.
    private var storedDepth: UInt16
    /// The object's position in ``OpSet/maps`` or ``OpSet/sequences``, by its kind.
    var body: Int32

    /// How many objects contain this one (0 for the root).
    var depth: Int {
        get { Int(storedDepth) }
        set { storedDepth = UInt16(newValue) }
    }

    init(id: OpId, kind: ObjectKind, parent: OpId, keyInParent: OpKey?, depth: Int = 0, body: Int32) {
        self.id = id
        self.kind = kind
        self.parent = parent
        self.keyInParent = keyInParent
        self.storedDepth = UInt16(depth)
        self.body = body
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

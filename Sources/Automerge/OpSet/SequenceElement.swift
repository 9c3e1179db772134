/// One element of a list or text: the op that inserted it, stored field by
/// field, and the ops that later targeted it (puts, increments), sorted by
/// op id.
///
/// Elements are the bulk of a document (one per character ever typed), so
/// the insert op is kept flat rather than as an ``Op``: its key is always an
/// element id, its insert flag always set, a mark name is rare enough to
/// live behind a reference and one successor is stored inline. That takes
/// an element from 104 bytes plus an array per deleted element to 72.
///
/// The insert op's key, the element it went after, is packed into the
/// bytes that padding after the value would take: its counter and a 16-bit
/// actor index. That makes an element 64 bytes, a cache line; the rare key whose
/// actor index does not fit is kept by the ``SequenceTree``
/// (``SequenceTree/forEachInsert(_:)`` reads every key).
struct SequenceElement: Sendable {
    /// The insert op's id, which is the element's id.
    let id: OpId
    /// The insert op's successors.
    private(set) var successors: SuccessorList
    let action: OpAction
    /// For mark anchors: expand-before on a begin, expand-after on an end.
    let expand: Bool
    /// Width of the element now, in the owning sequence's index units.
    var units: Int32 = 0
    /// The insert op's value.
    let value: Primitive
    // The insert op's key (see ``reference``), declared here so that it
    // fills the 7 bytes after the value's tag.
    private let referenceActor: UInt16
    private let referenceCounter: UInt32
    var updates: [Op] = []
    private let markNameStorage: MarkName?

    /// An element from its insert op's fields.
    init(id: OpId, reference: OpId, action: OpAction, value: Primitive, expand: Bool, markName: String?,
         successors: SuccessorList) {
        self.id = id
        if reference.actor < UInt32(Self.wideActor) {
            referenceActor = UInt16(reference.actor)
            referenceCounter = reference.counter
        } else {
            referenceActor = Self.wideActor
            referenceCounter = 0
        }
        self.successors = successors
        self.action = action
        self.expand = expand
        self.value = value
        markNameStorage = markName.map(MarkName.init)
    }

    /// The packed actor index of a key the element does not hold.
    private static let wideActor = UInt16.max

    /// The element the insert op went after (``OpId/root`` for HEAD), or nil
    /// if its actor index is too large to be packed here: then the tree has it.
    var reference: OpId? {
        referenceActor == Self.wideActor ? nil : OpId(counter: referenceCounter, actor: UInt32(referenceActor))
    }

    /// The name of a mark begin anchor; nil for an end anchor or any other op.
    var markName: String? { markNameStorage?.string }

    /// Whether a ``PackedLeaf`` can hold the element (see there): made by
    /// an insert of a scalar, never updated, no mark anchor, its key held
    /// here, and at most one successor, which is no increment.
    ///
    /// Read through a pointer, field by field: a method on the element
    /// copied it whole first (its value and lists retained), as the
    /// compiler cannot tell that nothing writes the pointee meanwhile.
    @inline(__always)
    static func isPlain(_ element: UnsafePointer<SequenceElement>) -> Bool {
        guard element.pointee.action == .set, !element.pointee.expand,
              element.pointee.referenceActor != wideActor,
              element.pointee.updates.isEmpty, element.pointee.markNameStorage == nil else {
            return false
        }
        return element.pointee.successors.isEmpty || element.pointee.successors.onlyNonIncrement != nil
    }

    var isMark: Bool { action == .mark }

    /// The insert op as an ``Op``, for reading its value: its key is given
    /// as HEAD where the element does not hold it (``reference``; encoders
    /// read keys through ``SequenceTree/forEachInsert(_:)``).
    var insertOp: Op {
        Op(id: id, action: action, insert: true, key: .element(reference ?? .root), value: value,
           expand: expand, markName: markName, successors: successors)
    }

    /// Whether the insert op contributes a value now.
    var insertOpIsVisible: Bool { Op.isVisible(action: action, value: value, successors: successors) }

    /// The op that gives the element its value now: the highest visible one.
    var winner: Op? {
        for op in updates.reversed() where op.isVisible { return op }
        return insertOpIsVisible ? insertOp : nil
    }

    /// Whether any op gives the element a value now.
    var isVisible: Bool { insertOpIsVisible || updates.contains { $0.isVisible } }

    /// The winning op at a point in history.
    func winner(at clock: Clock) -> Op? {
        for op in updates.reversed() where op.isVisible(at: clock) { return op }
        return Op.isVisible(id: id, action: action, value: value, successors: successors, at: clock) ? insertOp : nil
    }

    /// Every op visible now, in op id order (the first is the insert op if visible).
    var visibleOps: [Op] {
        var result: [Op] = []
        if insertOpIsVisible { result.append(insertOp) }
        for op in updates where op.isVisible { result.append(op) }
        return result
    }

    func visibleOps(at clock: Clock) -> [Op] {
        var result: [Op] = []
        if Op.isVisible(id: id, action: action, value: value, successors: successors, at: clock) { result.append(insertOp) }
        for op in updates where op.isVisible(at: clock) { result.append(op) }
        return result
    }

    /// The element's width under `rule`: that of its winning op, without
    /// building the insert op as an ``Op``.
    func units(under rule: WidthRule) -> Int32 {
        for op in updates.reversed() where op.isVisible { return rule.units(of: op) }
        return insertOpIsVisible ? rule.units(action: action, value: value) : 0
    }

    /// Records `delete` as the one successor of the insert op of an element
    /// that has no updates and whose insert op had none.
    mutating func deleteInsertOp(by delete: OpId) {
        precondition(updates.isEmpty && successors.isEmpty, "not a plain element")
        successors = SuccessorList(only: delete)
    }

    /// Records `successor` on the op `target` (the insert op or an update);
    /// false when the element has no such op.
    mutating func addSuccessor(_ successor: Successor, to target: OpId, actors: ActorTable) -> Bool {
        if target == id { successors.insert(successor, actors: actors); return true }
        guard let index = Op.sortedIndex(of: target, in: updates, actors: actors) else { return false }
        updates[index].successors.insert(successor, actors: actors)
        return true
    }
}

/// A mark's name, boxed: a reference in every element costs 8 bytes where
/// an optional string would cost 16, and only mark anchors have one.
final class MarkName: Sendable {
    let string: String
    init(_ string: String) { self.string = string }
}

/// How wide elements are in a sequence's index units.
struct WidthRule: Sendable {
    /// Text measures elements by their string in `encoding`; lists count 1 per element.
    let isText: Bool
    let encoding: TextEncoding

    func units(of op: Op?) -> Int32 {
        guard let op else { return 0 }
        return units(action: op.action, value: op.value)
    }

    /// The width of an element whose winning op has `action` and `value`.
    @inline(__always)
    func units(action: OpAction, value: Primitive) -> Int32 {
        guard isText else { return 1 }
        if action == .set { return units(ofSet: value) }
        return Int32(TextWidth.width(of: TextWidth.objectReplacement, in: encoding))
    }

    /// The width of an element whose winning op sets `value`.
    @inline(__always)
    func units(ofSet value: Primitive) -> Int32 {
        guard isText else { return 1 }
        if case .string(let s) = value { return Int32(truncatingIfNeeded: TextWidth.width(of: s, in: encoding)) }
        return Int32(TextWidth.width(of: TextWidth.objectReplacement, in: encoding))
    }
}

/// The width of a text element's string in each text encoding.
enum TextWidth {
    static func width(of string: String, in encoding: TextEncoding) -> Int {
        // One byte is one unit in every encoding, and typing makes mostly such strings.
        if string.utf8.count == 1 { return 1 }
        switch encoding {
        case .unicodeScalar: return string.unicodeScalars.count
        case .utf8: return string.utf8.count
        case .utf16: return string.utf16.count
        case .graphemeCluster: return string.count
        }
    }

    /// What a non-string element of a text shows as (the object replacement character).
    static let objectReplacement = "\u{FFFC}"
}

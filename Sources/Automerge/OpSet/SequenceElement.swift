/// One element of a list or text: the op that inserted it and the ops that
/// later targeted it (puts, increments), sorted by op id.
struct SequenceElement: Sendable {
    var insertOp: Op
    var updates: [Op] = []
    /// Width of the element now, in the owning sequence's index units.
    var units: Int32 = 0

    var id: OpId { insertOp.id }

    /// The op that gives the element its value now: the highest visible one.
    var winner: Op? {
        for op in updates.reversed() where op.isVisible { return op }
        return insertOp.isVisible ? insertOp : nil
    }

    /// The winning op at a point in history.
    func winner(at clock: Clock) -> Op? {
        for op in updates.reversed() where op.isVisible(at: clock) { return op }
        return insertOp.isVisible(at: clock) ? insertOp : nil
    }

    /// Every op visible now, in op id order (the first is the insert op if visible).
    var visibleOps: [Op] {
        var result: [Op] = []
        if insertOp.isVisible { result.append(insertOp) }
        for op in updates where op.isVisible { result.append(op) }
        return result
    }

    func visibleOps(at clock: Clock) -> [Op] {
        var result: [Op] = []
        if insertOp.isVisible(at: clock) { result.append(insertOp) }
        for op in updates where op.isVisible(at: clock) { result.append(op) }
        return result
    }

    /// Applies `body` to the op with `id` (the insert op or an update).
    mutating func modifyOp(_ id: OpId, _ body: (inout Op) -> Void) -> Bool {
        if insertOp.id == id { body(&insertOp); return true }
        guard let index = updates.firstIndex(where: { $0.id == id }) else { return false }
        body(&updates[index])
        return true
    }
}

/// How wide elements are in a sequence's index units.
struct WidthRule: Sendable {
    /// Text measures elements by their string in `encoding`; lists count 1 per element.
    let isText: Bool
    let encoding: TextEncoding

    func units(of op: Op?) -> Int32 {
        guard let op else { return 0 }
        guard isText else { return 1 }
        if op.action == .set { return units(ofSet: op.value) }
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

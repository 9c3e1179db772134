/// A later op that overwrote (or, for counters, incremented) an op.
struct Successor: Sendable, Equatable {
    var id: OpId
    /// The amount, when the successor is an increment.
    var increment: Int64?
}

/// The key an op targets: a map key, or a sequence element id
/// (``OpId/root`` for HEAD).
enum OpKey: Hashable, Sendable {
    case map(MapKey)
    case element(OpId)
}

/// A map key. Keys compare and hash by their UTF-8 bytes, as Automerge does;
/// Swift's `String ==` would merge canonically equivalent keys.
struct MapKey: Hashable, Comparable, Sendable {
    let string: String

    init(_ string: String) {
        var contiguous = string
        contiguous.makeContiguousUTF8()
        self.string = contiguous
    }

    /// The key's UTF-8 bytes (the string is made contiguous on creation).
    @inline(__always)
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(string.utf8).withUnsafeBufferPointer(body)
    }

    static func == (lhs: MapKey, rhs: MapKey) -> Bool {
        lhs.withBytes { left in rhs.withBytes { right in left.count == right.count && left.elementsEqual(right) } }
    }

    func hash(into hasher: inout Hasher) {
        withBytes { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    static func < (lhs: MapKey, rhs: MapKey) -> Bool { lhs.string.utf8.lexicographicallyPrecedes(rhs.string.utf8) }
}

/// One stored op (deletes are never stored: they live on as successors).
struct Op: Sendable {
    var id: OpId
    var action: OpAction
    var insert: Bool
    var key: OpKey
    /// The scalar for `set`, the amount for `increment`, the mark value for a mark begin.
    var value: Primitive
    /// For marks: expand-before on a begin anchor, expand-after on an end anchor.
    var expand: Bool = false
    /// The name of a mark begin anchor; nil for an end anchor.
    var markName: String? = nil
    /// Ops that overwrote or incremented this one, sorted by op id.
    var successors = SuccessorList()

    var isCounter: Bool { Self.isCounter(action: action, value: value) }

    var isMark: Bool { action == .mark }

    /// Whether the op contributes a value now: not an increment or mark, and
    /// not overwritten (a counter stays visible while only incremented).
    var isVisible: Bool { Self.isVisible(action: action, value: value, successors: successors) }

    /// Visibility at a point in history.
    func isVisible(at clock: Clock) -> Bool {
        Self.isVisible(id: id, action: action, value: value, successors: successors, at: clock)
    }

    /// Visibility now of an op with these fields (sequence elements keep
    /// their insert op's fields apart, see ``SequenceElement``).
    static func isVisible(action: OpAction, value: Primitive, successors: SuccessorList) -> Bool {
        switch action {
        case .increment, .mark, .delete: return false
        default:
            if successors.isEmpty { return true }
            return isCounter(action: action, value: value) && successors.allIncrements
        }
    }

    /// Visibility at `clock` of an op with these fields.
    static func isVisible(id: OpId, action: OpAction, value: Primitive, successors: SuccessorList, at clock: Clock) -> Bool {
        switch action {
        case .increment, .mark, .delete: return false
        default:
            guard clock.covers(id) else { return false }
            let counter = isCounter(action: action, value: value)
            for successor in successors where clock.covers(successor.id) {
                if !(counter && successor.increment != nil) { return false }
            }
            return true
        }
    }

    static func isCounter(action: OpAction, value: Primitive) -> Bool {
        if action == .set, case .counter = value { return true }
        return false
    }

    /// The value of a counter including its increments (all, or those in `clock`).
    func counterValue(at clock: Clock?) -> Int64 {
        guard case .counter(let start) = value else { return 0 }
        var total = start
        for successor in successors {
            guard let amount = successor.increment else { continue }
            if let clock, !clock.covers(successor.id) { continue }
            total = total &+ amount
        }
        return total
    }
}

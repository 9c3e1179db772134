extension BodyValue {
    /// Whether the two are the same value: strings equal only when their
    /// Unicode scalars are (Swift's `String ==` would take "é" and
    /// "e\u{301}" for one, and a write of one over the other for no
    /// change), maps by their `ExactString` keys, numbers as Swift
    /// compares them (an integer never equals a double).
    public static func == (a: BodyValue, b: BodyValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y
        case (.string(let x), .string(let y)): return ExactString(x) == ExactString(y)
        case (.list(let x), .list(let y)): return x == y
        case (.map(let x), .map(let y)): return x == y
        default: return false
        }
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0 as UInt8)
        case .bool(let value): hasher.combine(1 as UInt8); hasher.combine(value)
        case .int(let value): hasher.combine(2 as UInt8); hasher.combine(value)
        case .double(let value): hasher.combine(3 as UInt8); hasher.combine(value)
        case .string(let value): hasher.combine(4 as UInt8); hasher.combine(ExactString(value))
        case .list(let value): hasher.combine(5 as UInt8); hasher.combine(value)
        case .map(let value): hasher.combine(6 as UInt8); hasher.combine(value)
        }
    }
}

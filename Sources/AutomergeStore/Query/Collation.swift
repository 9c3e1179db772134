/// The order of JSON values in queries, CouchDB's collation: null < false <
/// true < numbers < strings < arrays < maps. Numbers compare by value
/// (integers and doubles together), strings by Unicode code points (SQLite's
/// binary order, which the indexes use; two strings are equal only when
/// their scalars are, so "é" and "e\u{301}" are not), arrays element by
/// element and then by length, maps by their sorted keys and values, key by key.
enum Collation {
    /// The rank of a value's type in the order.
    static func rank(_ value: BodyValue) -> Int {
        switch value {
        case .null: return 0
        case .bool(false): return 1
        case .bool(true): return 2
        case .int, .double: return 3
        case .string: return 4
        case .list: return 5
        case .map: return 6
        }
    }

    /// -1, 0 or 1 as `a` sorts before, with or after `b`.
    static func compare(_ a: BodyValue, _ b: BodyValue) -> Int {
        let (rankA, rankB) = (rank(a), rank(b))
        guard rankA == rankB else { return rankA < rankB ? -1 : 1 }
        switch (a, b) {
        case (.string(let x), .string(let y)):
            let (left, right) = (ExactString(x), ExactString(y))
            return left < right ? -1 : (left == right ? 0 : 1)
        case (.list(let x), .list(let y)):
            for (left, right) in zip(x, y) {
                let order = compare(left, right)
                if order != 0 { return order }
            }
            return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
        case (.map(let x), .map(let y)):
            return compare(pairs(x), pairs(y))
        default:
            return compareNumbers(a, b)
        }
    }

    /// Numbers by value: two integers exactly, otherwise as doubles with
    /// ties between an integer and a double broken exactly.
    private static func compareNumbers(_ a: BodyValue, _ b: BodyValue) -> Int {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.int(let x), .double(let y)): return -compareDouble(y, x)
        case (.double(let x), .int(let y)): return compareDouble(x, y)
        case (.double(let x), .double(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        default: return 0
        }
    }

    private static func compareDouble(_ x: Double, _ y: Int64) -> Int {
        if x < -9.223_372_036_854_775_808e18 { return -1 }
        if x >= 9.223_372_036_854_775_808e18 { return 1 }
        let truncated = Int64(x.rounded(.down))
        if truncated != y { return truncated < y ? -1 : 1 }
        return x > x.rounded(.down) ? 1 : 0
    }

    /// A map as a list of alternating sorted keys and values.
    private static func pairs(_ map: [ExactString: BodyValue]) -> BodyValue {
        .list(map.sorted { $0.key < $1.key }.flatMap { [BodyValue.string($0.key.string), $0.value] })
    }
}

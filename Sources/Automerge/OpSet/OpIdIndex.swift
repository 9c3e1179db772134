/// A hash map from op ids to small integers (leaf numbers), with open
/// addressing and a multiplicative hash.
///
/// Sequence trees look up element ids on every remote insert, delete and
/// cursor resolution; `Dictionary`'s per-lookup SipHash seeding was a
/// tenth of the editing-trace time. Op ids are already well-spread 64-bit
/// keys, so Fibonacci hashing is enough. Keys are never removed.
struct OpIdIndex: Sendable {
    private var keys: [UInt64]
    private var values: [Int32]
    private var shift: UInt64
    private(set) var count = 0

    /// The key no op id packs to (counter 0 is never a real element).
    private static let empty: UInt64 = 0

    init(minimumCapacity: Int = 16) {
        var capacity = 16
        while capacity < minimumCapacity * 2 { capacity *= 2 }
        keys = [UInt64](repeating: Self.empty, count: capacity)
        values = [Int32](repeating: 0, count: capacity)
        shift = UInt64(64 - capacity.trailingZeroBitCount)
    }

    @inline(__always)
    private static func pack(_ id: OpId) -> UInt64 { UInt64(id.counter) << 32 | UInt64(id.actor) }

    @inline(__always)
    private func slot(for key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift) }

    subscript(id: OpId) -> Int32? {
        get {
            let key = Self.pack(id)
            guard key != Self.empty else { return nil }
            let mask = keys.count - 1
            var index = slot(for: key)
            while true {
                let stored = keys[index]
                if stored == key { return values[index] }
                if stored == Self.empty { return nil }
                index = (index + 1) & mask
            }
        }
        set {
            guard let newValue else { preconditionFailure("OpIdIndex never removes keys") }
            let key = Self.pack(id)
            precondition(key != Self.empty, "op counter 0 names no element")
            if (count + 1) * 2 > keys.count { grow() }
            let mask = keys.count - 1
            var index = slot(for: key)
            while true {
                let stored = keys[index]
                if stored == key { values[index] = newValue; return }
                if stored == Self.empty {
                    keys[index] = key
                    values[index] = newValue
                    count += 1
                    return
                }
                index = (index + 1) & mask
            }
        }
    }

    mutating func reserveCapacity(_ capacity: Int) {
        guard capacity * 2 > keys.count else { return }
        rehash(into: OpIdIndex(minimumCapacity: capacity))
    }

    private mutating func grow() {
        rehash(into: OpIdIndex(minimumCapacity: keys.count))
    }

    private mutating func rehash(into fresh: OpIdIndex) {
        var fresh = fresh
        for (index, key) in keys.enumerated() where key != Self.empty {
            fresh[OpId(counter: UInt32(truncatingIfNeeded: key >> 32), actor: UInt32(truncatingIfNeeded: key))] = values[index]
        }
        self = fresh
    }
}

/// A map from op ids to small integers (leaf numbers, object positions).
/// Keys are never removed.
///
/// Ids live in per-actor arrays indexed by counter whenever that stays
/// dense: an actor's counters are consecutive while it types, so an insert
/// or lookup is one array access near the previous one. Typing a million
/// characters into a hash table touched a random cache line per character
/// and made the index the largest cost of an edit. Ids that would make the
/// arrays sparse (a hostile file's counters, say) go to an open-addressing
/// hash table with a multiplicative hash instead (`Dictionary`'s seeded
/// SipHash cost a tenth of the editing trace).
struct OpIdIndex: Sendable {
    /// dense[actor][counter - 1]; -1 marks an absent id.
    private var dense: [[Int32]] = []
    /// The slots of all dense arrays together, kept within a multiple of
    /// `count` so that memory stays proportional to the entries.
    private(set) var denseCapacity = 0
    private var keys: [UInt64]
    private var values: [Int32]
    private var shift: UInt64
    private var hashedCount = 0
    private(set) var count = 0

    /// The key no op id packs to (counter 0 is never a real element).
    private static let empty: UInt64 = 0
    private static let absent: Int32 = -1

    /// An empty index (its hash table at the smallest size).
    init() {
        keys = []
        values = []
        shift = 0
        rehash(capacity: 0)
    }

    @inline(__always)
    private static func pack(_ id: OpId) -> UInt64 { UInt64(id.counter) << 32 | UInt64(id.actor) }

    @inline(__always)
    private func slot(for key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift) }

    subscript(id: OpId) -> Int32? {
        get {
            let actor = Int(id.actor)
            if actor < dense.count, id.counter >= 1, Int(id.counter) <= dense[actor].count {
                let value = dense[actor][Int(id.counter) - 1]
                if value != Self.absent { return value }
            }
            return hashedCount == 0 ? nil : hashed(id)
        }
        set {
            guard let newValue else { preconditionFailure("OpIdIndex never removes keys") }
            precondition(id.counter != 0, "op counter 0 names no element")
            assert(newValue >= 0, "OpIdIndex stores non-negative values")
            if setDense(id, newValue) { return }
            setHashed(id, newValue)
        }
    }

    /// Prepares for `entries` ids whose largest counter per actor index is
    /// `maxCounters`: dense arrays when they fit the density bound, else
    /// a hash table of the right size.
    mutating func reserve(entries: Int, maxCounters: [UInt32]) {
        let total = maxCounters.reduce(0) { $0 + Int($1) }
        if total <= 4 * entries + 65_536, maxCounters.count < 1 << 20 {
            while dense.count < maxCounters.count { dense.append([]) }
            for (actor, bound) in maxCounters.enumerated() where Int(bound) > dense[actor].count {
                denseCapacity += Int(bound) - dense[actor].count
                dense[actor].append(contentsOf: repeatElement(Self.absent, count: Int(bound) - dense[actor].count))
            }
        } else if entries * 2 > keys.count {
            rehash(capacity: entries)
        }
    }

    // MARK: Dense arrays

    /// Stores `id` in its actor's array if it is there or can grow there
    /// while the arrays stay within a few slots per entry.
    @inline(__always)
    private mutating func setDense(_ id: OpId, _ value: Int32) -> Bool {
        let actor = Int(id.actor), counter = Int(id.counter)
        if actor < dense.count, counter <= dense[actor].count {
            if dense[actor][counter - 1] == Self.absent {
                if hashedCount > 0, hashed(id) != nil { return false }  // already in the hash table
                count += 1
            }
            dense[actor][counter - 1] = value
            return true
        }
        return growDense(id, value)
    }

    private mutating func growDense(_ id: OpId, _ value: Int32) -> Bool {
        let actor = Int(id.actor), counter = Int(id.counter)
        let current = actor < dense.count ? dense[actor].count : 0
        let target = max(counter, min(current * 2, counter + 4096), 64)
        guard denseCapacity + (target - current) <= 4 * (count + 1) + 65_536, actor < 1 << 20 else { return false }
        if hashedCount > 0, hashed(id) != nil { return false }
        while dense.count <= actor { dense.append([]) }
        dense[actor].append(contentsOf: repeatElement(Self.absent, count: target - current))
        denseCapacity += target - current
        dense[actor][counter - 1] = value
        count += 1
        return true
    }

    // MARK: Hash table

    private func hashed(_ id: OpId) -> Int32? {
        let key = Self.pack(id)
        let mask = keys.count - 1
        var index = slot(for: key)
        while true {
            let stored = keys[index]
            if stored == key { return values[index] }
            if stored == Self.empty { return nil }
            index = (index + 1) & mask
        }
    }

    private mutating func setHashed(_ id: OpId, _ value: Int32) {
        let key = Self.pack(id)
        if (hashedCount + 1) * 2 > keys.count { rehash(capacity: keys.count) }
        let mask = keys.count - 1
        var index = slot(for: key)
        while true {
            let stored = keys[index]
            if stored == key { values[index] = value; return }
            if stored == Self.empty {
                keys[index] = key
                values[index] = value
                hashedCount += 1
                count += 1
                return
            }
            index = (index + 1) & mask
        }
    }

    private mutating func rehash(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        let oldKeys = keys, oldValues = values
        keys = [UInt64](repeating: Self.empty, count: size)
        values = [Int32](repeating: 0, count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
        let mask = size - 1
        for (position, key) in oldKeys.enumerated() where key != Self.empty {
            var index = slot(for: key)
            while keys[index] != Self.empty { index = (index + 1) & mask }
            keys[index] = key
            values[index] = oldValues[position]
        }
    }
}

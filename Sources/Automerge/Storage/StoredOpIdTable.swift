/// A map from stored op ids to row numbers: open addressing with linear
/// probing on a multiplicative hash of the packed id.
///
/// Rebuilding the changes of a document looks up every successor of every
/// op; `Dictionary` with its seeded SipHash made that lookup the largest cost
/// of a load.
struct StoredOpIdTable {
    private var keys: [UInt64]
    /// The row stored for the key in the same slot; -1 marks an empty slot.
    private var rows: [Int]
    private var shift: UInt64
    private(set) var count = 0

    init(minimumCapacity: Int = 0) {
        var slots = 16
        while slots < minimumCapacity * 2 { slots *= 2 }
        keys = [UInt64](repeating: 0, count: slots)
        rows = [Int](repeating: -1, count: slots)
        shift = UInt64(64 - slots.trailingZeroBitCount)
    }

    /// Counters are at most 32 bits (the decoder checks); actor indices are
    /// bounded by the actor table, far below 2^32.
    private static func pack(_ id: StoredOpId) -> UInt64 {
        id.counter << 32 | UInt64(truncatingIfNeeded: id.actor) & 0xFFFF_FFFF
    }

    private func home(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift) }

    /// The row stored for `id`.
    subscript(id: StoredOpId) -> Int? {
        let key = Self.pack(id)
        let mask = rows.count - 1
        var slot = home(key)
        while rows[slot] >= 0 {
            if keys[slot] == key { return rows[slot] }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Stores `row` for `id` unless `id` is already present; returns
    /// whether it was stored.
    @discardableResult
    mutating func insert(_ id: StoredOpId, row: Int) -> Bool {
        precondition(row >= 0, "rows are non-negative")
        if (count + 1) * 2 > rows.count { grow() }
        let key = Self.pack(id)
        let mask = rows.count - 1
        var slot = home(key)
        while rows[slot] >= 0 {
            if keys[slot] == key { return false }
            slot = (slot + 1) & mask
        }
        keys[slot] = key
        rows[slot] = row
        count += 1
        return true
    }

    private mutating func grow() {
        let (oldKeys, oldRows) = (keys, rows)
        keys = [UInt64](repeating: 0, count: oldRows.count * 2)
        rows = [Int](repeating: -1, count: oldRows.count * 2)
        shift -= 1
        let mask = rows.count - 1
        for (key, row) in zip(oldKeys, oldRows) where row >= 0 {
            var slot = home(key)
            while rows[slot] >= 0 { slot = (slot + 1) & mask }
            keys[slot] = key
            rows[slot] = row
        }
    }
}

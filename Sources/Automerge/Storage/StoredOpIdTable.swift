/// A map from stored op ids to row numbers: open addressing with linear
/// probing on a multiplicative hash of the packed id.
///
/// Rebuilding the changes of a document looks up every successor of every
/// op; `Dictionary` with its seeded SipHash made that lookup the largest cost
/// of a load. When the caller knows each actor's largest counter and the
/// counters are dense enough (as in any real document), ids in that range
/// live in plain per-actor arrays instead: a smaller, cache-friendly table.
struct StoredOpIdTable {
    /// Rows by actor, then by counter - 1 (-1: absent). Ids outside these
    /// ranges go to the hash slots.
    private var dense: [[Int32]] = []
    /// Key and row side by side: one cache miss per probe.
    private struct Slot {
        var key: UInt64
        /// -1 marks an empty slot.
        var row: Int
    }
    private var slots: [Slot]
    private var shift: UInt64
    private(set) var count = 0
    private var hashed = 0

    /// `counterBounds[actor]` is the largest counter expected of that actor;
    /// the dense arrays are used when their total size is within a small
    /// multiple of `minimumCapacity`.
    init(minimumCapacity: Int = 0, counterBounds: [UInt64] = []) {
        var expected = minimumCapacity
        // Counters beyond 32 bits never occur in a valid file; clamping keeps the sum from overflowing.
        let denseSize = counterBounds.reduce(UInt64(0)) { $0 + min($1, UInt64(UInt32.max)) }
        if !counterBounds.isEmpty && minimumCapacity < Int(Int32.max) && denseSize <= UInt64(minimumCapacity) * 4 + 4096 {
            dense = counterBounds.map { [Int32](repeating: -1, count: Int($0)) }
            expected = 0
        }
        var slots = 16
        while slots < expected * 2 { slots *= 2 }
        self.slots = [Slot](repeating: Slot(key: 0, row: -1), count: slots)
        shift = UInt64(64 - slots.trailingZeroBitCount)
    }

    /// Counters are at most 32 bits (the decoder checks); actor indices are
    /// bounded by the actor table, far below 2^32.
    private static func pack(_ id: StoredOpId) -> UInt64 {
        id.counter << 32 | UInt64(truncatingIfNeeded: id.actor) & 0xFFFF_FFFF
    }

    private func home(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift) }

    private func denseSlot(_ id: StoredOpId) -> (actor: Int, index: Int)? {
        guard id.actor >= 0 && id.actor < dense.count && id.counter >= 1 && id.counter <= UInt64(dense[id.actor].count) else {
            return nil
        }
        return (id.actor, Int(id.counter - 1))
    }

    /// The row stored for `id`.
    subscript(id: StoredOpId) -> Int? {
        if let (actor, index) = denseSlot(id) {
            let row = dense[actor][index]
            return row >= 0 ? Int(row) : nil
        }
        let key = Self.pack(id)
        let mask = slots.count - 1
        var slot = home(key)
        while slots[slot].row >= 0 {
            if slots[slot].key == key { return slots[slot].row }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Stores `row` for `id` unless `id` is already present; returns
    /// whether it was stored.
    @discardableResult
    mutating func insert(_ id: StoredOpId, row: Int) -> Bool {
        precondition(row >= 0, "rows are non-negative")
        if let (actor, index) = denseSlot(id), row < Int(Int32.max) {
            guard dense[actor][index] < 0 else { return false }
            dense[actor][index] = Int32(row)
            count += 1
            return true
        }
        if (hashed + 1) * 2 > slots.count { grow() }
        let key = Self.pack(id)
        let mask = slots.count - 1
        var slot = home(key)
        while slots[slot].row >= 0 {
            if slots[slot].key == key { return false }
            slot = (slot + 1) & mask
        }
        slots[slot] = Slot(key: key, row: row)
        hashed += 1
        count += 1
        return true
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(key: 0, row: -1), count: old.count * 2)
        shift -= 1
        let mask = slots.count - 1
        for entry in old where entry.row >= 0 {
            var slot = home(entry.key)
            while slots[slot].row >= 0 { slot = (slot + 1) & mask }
            slots[slot] = entry
        }
    }
}

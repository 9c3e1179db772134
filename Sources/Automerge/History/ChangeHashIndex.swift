/// The index from a change's hash to its position in the history: an
/// open-addressing table of positions alone, at most half full, whose
/// lookups compare against the hashes the history already holds.
///
/// A `[ChangeHash: Int]` kept each 32-byte hash a second time beside its
/// position, at the dictionary's load factor: five times this table's
/// memory. The slot of a hash mixes its first
/// word with a per-process seed, so that a peer that grinds change contents
/// cannot choose which changes collide.
struct ChangeHashIndex: Sendable {
    /// Per slot: the position of a change plus one, or 0 for an empty slot.
    private var slots: [UInt32] = []
    /// The number of positions held.
    private(set) var count = 0

    /// The most changes a history can hold (positions are 32-bit).
    static let capacity = Int(UInt32.max - 1)

    init() {}

    /// The position of `hash`, where `hashAt(position)` is the hash of
    /// the change at each position the index holds.
    @inline(__always)
    func position(of hash: ChangeHash, hashAt: (Int) -> ChangeHash) -> Int? {
        guard !slots.isEmpty else { return nil }
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var slot = Self.slot(of: hash, mask: mask)
            while slots[slot] != 0 {
                let position = Int(slots[slot] - 1)
                if hashAt(position) == hash { return position }
                slot = (slot + 1) & mask
            }
            return nil
        }
    }

    /// Makes room for `total` positions in all, so that adding them does
    /// not grow the table step by step.
    mutating func reserveCapacity(_ total: Int, hashAt: (Int) -> ChangeHash) {
        if total * 2 > slots.count { rebuild(slotCount: Self.slotCount(for: total), hashAt: hashAt) }
    }

    /// Adds `position` (``count``: positions are added in order) for
    /// `hash`, which the index does not hold.
    mutating func append(_ hash: ChangeHash, hashAt: (Int) -> ChangeHash) {
        precondition(count < Self.capacity, "history full")
        assert(position(of: hash, hashAt: hashAt) == nil, "a hash the index holds")
        if (count + 1) * 2 > slots.count { rebuild(slotCount: Self.slotCount(for: count + 1), hashAt: hashAt) }
        let position = count
        slots.withUnsafeMutableBufferPointer { Self.place(position, hash: hash, in: $0) }
        count += 1
    }

    /// The heap bytes the table takes.
    var byteCount: Int { slots.capacity * MemoryLayout<UInt32>.stride }

    /// The smallest power of two at least twice `total` (and at least 16).
    private static func slotCount(for total: Int) -> Int {
        var slotCount = 16
        while slotCount < total * 2 { slotCount *= 2 }
        return slotCount
    }

    private mutating func rebuild(slotCount: Int, hashAt: (Int) -> ChangeHash) {
        var rebuilt = [UInt32](repeating: 0, count: slotCount)
        rebuilt.withUnsafeMutableBufferPointer { slots in
            for position in 0..<count { Self.place(position, hash: hashAt(position), in: slots) }
        }
        slots = rebuilt
    }

    /// Puts `position` in the first free slot from its hash's.
    @inline(__always)
    private static func place(_ position: Int, hash: ChangeHash, in slots: UnsafeMutableBufferPointer<UInt32>) {
        let mask = slots.count - 1
        var slot = self.slot(of: hash, mask: mask)
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = UInt32(truncatingIfNeeded: position + 1)
    }

    /// Per process, so that which hashes collide cannot be known in advance.
    private static let seed = UInt64.random(in: .min ... .max)

    @inline(__always)
    private static func slot(of hash: ChangeHash, mask: Int) -> Int {
        // wyhash's mixing step: every bit of the word and the seed reaches the result.
        let product = (hash.w0 ^ seed).multipliedFullWidth(by: 0x9E37_79B9_7F4A_7C15)
        return Int(truncatingIfNeeded: product.high ^ product.low) & mask
    }
}

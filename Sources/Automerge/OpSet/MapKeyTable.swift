/// The hash index of a map object's keys: from a key's hash to the key's
/// position in the map's key order. It stores no keys: a lookup yields
/// the positions whose keys may have the hash, and the caller compares.
///
/// Open addressing with linear probing, at most half full, in two parallel
/// arrays: a byte per slot (0 for empty, else the top seven bits of the
/// hash with the high bit set) and the position of the slot's key. A new
/// key of a large map is found absent by reading the byte array alone, an
/// eighth of the memory that 8-byte slots would take: the cache miss on
/// each new key of a large map is most of the cost of a put.
struct MapKeyTable: Sendable {
    /// Per slot: 0 if empty, else ``tag(_:)`` of the hash of its key.
    private(set) var tags: [UInt8] = []
    /// Per slot: the position of its key, where the tag is not 0.
    private(set) var positions: [UInt32] = []
    /// The hash of the key at each position, to place them when the table
    /// grows (in chunks: no copy when the list grows).
    private(set) var hashes = ChunkedList<UInt64>()

    init() {}

    /// The number of keys.
    var count: Int { hashes.count }

    /// The most keys a map can hold (positions are 32-bit).
    static let capacity = Int(Int32.max)

    /// Where a lookup of a hash is in its probe sequence.
    struct Probe {
        fileprivate var slot: Int
        fileprivate let tag: UInt8
    }

    /// The start of the lookup of `hash`.
    @inline(__always)
    func probe(_ hash: UInt64) -> Probe {
        Probe(slot: tags.isEmpty ? 0 : Int(truncatingIfNeeded: hash) & (tags.count - 1), tag: Self.tag(hash))
    }

    /// The next position in the probe sequence of `probe` whose key may have
    /// that hash (the caller compares the key), or nil when none is left.
    ///
    /// A loop over candidates rather than a method taking the comparison
    /// as a closure: a closure capturing the map's entries copied them, a
    /// retain and release of each of their arrays per lookup.
    @inline(__always)
    func nextCandidate(_ probe: inout Probe) -> Int? {
        guard !tags.isEmpty else { return nil }
        let mask = tags.count - 1
        while true {
            let stored = tags[probe.slot]
            if stored == 0 { return nil }
            let slot = probe.slot
            probe.slot = (slot + 1) & mask
            if stored == probe.tag { return Int(positions[slot]) }
        }
    }

    /// Adds the next position (``count``), for a key whose hash is `hash`
    /// and that the table does not hold yet; returns it.
    mutating func append(hash: UInt64) -> Int {
        precondition(count < Self.capacity, "map object full")
        if (count + 1) * 2 > tags.count { grow() }
        let position = count
        hashes.append(hash)
        place(position, hash: hash)
        return position
    }

    /// High bit set, so that no tag is 0 (empty).
    @inline(__always)
    static func tag(_ hash: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: hash >> 57) | 0x80 }

    private mutating func place(_ position: Int, hash: UInt64) {
        tags.withUnsafeMutableBufferPointer { tags in
            positions.withUnsafeMutableBufferPointer { positions in
                Self.place(position, hash: hash, tags: tags, positions: positions)
            }
        }
    }

    /// Puts `position` in the first free slot from its hash's, in tables
    /// whose size is a power of two with a free slot.
    @inline(__always)
    private static func place(_ position: Int, hash: UInt64, tags: UnsafeMutableBufferPointer<UInt8>,
                              positions: UnsafeMutableBufferPointer<UInt32>) {
        let mask = tags.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while tags[slot] != 0 { slot = (slot + 1) & mask }
        tags[slot] = tag(hash)
        positions[slot] = UInt32(truncatingIfNeeded: position)
    }

    private mutating func grow() {
        let slotCount = Swift.max(8, tags.count * 2)
        var newTags = [UInt8](repeating: 0, count: slotCount)
        var newPositions = [UInt32](repeating: 0, count: slotCount)
        newTags.withUnsafeMutableBufferPointer { tags in
            newPositions.withUnsafeMutableBufferPointer { positions in
                var position = 0
                for chunk in hashes.chunks {
                    for hash in chunk {
                        Self.place(position, hash: hash, tags: tags, positions: positions)
                        position += 1
                    }
                }
            }
        }
        tags = newTags
        positions = newPositions
    }
}

#if DEBUG
/// Write access for the tests that break the table on purpose to show that
/// ``checkInvariants()`` reports it (debug builds only).
extension MapKeyTable {
    var tagsForTesting: [UInt8] { get { tags } set { tags = newValue } }
    var positionsForTesting: [UInt32] { get { positions } set { positions = newValue } }
    var hashesForTesting: ChunkedList<UInt64> { get { hashes } set { hashes = newValue } }
}
#endif

/// The ops of one map object, by key: a hash table from ``MapKey`` to the
/// key's ops (sorted by op id), keys kept in the order they first appeared.
///
/// `Dictionary` hashed every key with a freshly seeded SipHash, twice per
/// put (a check, then the modify), and seeding alone was a tenth of a put.
/// Here a key is hashed once per access with a folded 128-bit multiply over
/// its UTF-8 bytes, seeded per process so that a peer cannot choose keys
/// that collide, and the table holds only entry indices (open addressing,
/// linear probing, at most half full) with each entry's hash cached for
/// growth and its high half in the table for cheap mismatches. Keys are never removed: a deleted key
/// keeps its ops (they carry the delete as a successor).
struct MapEntries: Sendable {
    /// Every key, in the order it was added.
    private(set) var keys: [MapKey] = []
    /// The ops of `keys[i]`, in chunks: a million keys' ops (inline, see
    /// ``KeyOps``) in an array grown by doubling wrote twice their bytes
    /// into fresh pages (see ``ChunkedList``).
    private var ops = ChunkedList<KeyOps>()
    private var hashes: [UInt64] = []
    /// The open-addressing table (see ``slotValue(index:hash:)``); 0 is an
    /// empty slot. Empty until the first key.
    private var slots: [UInt64] = []

    init() {}

    var count: Int { keys.count }
    var isEmpty: Bool { keys.isEmpty }

    /// The ops of `key`, or nil if the key never had any.
    subscript(key: MapKey) -> KeyOps? { self[key, hash: Self.hash(key)] }

    /// The ops of `key`, whose ``hash(_:)`` is `hash` (a local put hashes
    /// its key once for the lookup and the apply).
    subscript(key: MapKey, hash hash: UInt64) -> KeyOps? {
        // Inlined so that a caller reading through a pointer (a local put)
        // does not copy the table, a retain and release of each array.
        @inline(__always) get {
            assert(hash == Self.hash(key), "hash of another key")
            guard let index = find(key, hash: hash) else { return nil }
            return ops[index]
        }
    }

    /// The ops of `key` for reading and writing in place, added empty if
    /// the key has none yet.
    subscript(key: MapKey, default empty: KeyOps) -> KeyOps {
        get { self[key] ?? empty }
        _modify { yield &self[key, hash: Self.hash(key), default: empty] }
    }

    /// The ops of `key`, whose ``hash(_:)`` is `hash`, in place; added empty
    /// if the key has none yet.
    subscript(key: MapKey, hash hash: UInt64, default empty: KeyOps) -> KeyOps {
        get { self[key, hash: hash] ?? empty }
        _modify {
            assert(hash == Self.hash(key), "hash of another key")
            let index = find(key, hash: hash) ?? add(key, hash: hash)
            yield &ops[index]
        }
    }

    /// The position of `key` in the key order, or nil if it never had ops.
    func index(of key: MapKey, hash: UInt64) -> Int? {
        assert(hash == Self.hash(key), "hash of another key")
        return find(key, hash: hash)
    }

    /// Adds `key`, which has no entry (the caller has just looked), with
    /// `ops`; returns its position.
    mutating func add(_ key: MapKey, hash: UInt64, new ops: consuming KeyOps) -> Int {
        assert(hash == Self.hash(key) && find(key, hash: hash) == nil, "key added twice")
        return add(key, hash: hash, ops: ops)
    }

    /// The ops of the key at `index` in the key order (that of ``keys``).
    subscript(opsAt index: Int) -> KeyOps {
        get { ops[index] }
        _modify { yield &ops[index] }
    }

    // MARK: Table

    /// A slot holds the entry index + 1 in its low half and the high half
    /// of the key's hash in its high half: probing past other keys then
    /// reads only the slot array (one cache miss for a new key in a large map).
    @inline(__always)
    private static func slotValue(index: Int, hash: UInt64) -> UInt64 {
        (hash & 0xFFFF_FFFF_0000_0000) | UInt64(index + 1)
    }

    @inline(__always)
    private func find(_ key: MapKey, hash: UInt64) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        let tag = hash & 0xFFFF_FFFF_0000_0000
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let stored = slots[slot]
            if stored == 0 { return nil }
            if stored & 0xFFFF_FFFF_0000_0000 == tag {
                let index = Int(truncatingIfNeeded: stored & 0xFFFF_FFFF) - 1
                if keys[index] == key { return index }
            }
            slot = (slot + 1) & mask
        }
    }

    @discardableResult
    private mutating func add(_ key: MapKey, hash: UInt64, ops initial: consuming KeyOps = []) -> Int {
        precondition(keys.count < Int(Int32.max), "map object full")
        if (keys.count + 1) * 2 > slots.count { grow() }
        let index = keys.count
        keys.append(key)
        ops.append(consume initial)  // moved: a copy retained each of the op's fields (~180 instructions a put)
        hashes.append(hash)
        place(index, hash: hash)
        return index
    }

    private mutating func place(_ index: Int, hash: UInt64) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Self.slotValue(index: index, hash: hash)
    }

    private mutating func grow() {
        slots = [UInt64](repeating: 0, count: Swift.max(8, slots.count * 2))
        for index in hashes.indices { place(index, hash: hashes[index]) }
    }

    // MARK: Hashing

    /// Per process, so that which keys collide cannot be known in advance.
    private static let seed = UInt64.random(in: .min ... .max)

    /// The hash of `key` in this process.
    @inline(__always)
    static func hash(_ key: MapKey) -> UInt64 {
        key.withBytes { bytes in
            let count = bytes.count
            guard let base = bytes.baseAddress.map(UnsafeRawPointer.init), count > 0 else { return fold(seed, seed ^ 0x9E37_79B9_7F4A_7C15) }
            var state = seed ^ UInt64(count)
            // Whole words but the last, then the last one to eight bytes as
            // (possibly overlapping) unaligned loads: most keys are short,
            // and a byte-at-a-time tail was a third of a short key's hash.
            var offset = 0
            while count - offset > 8 {
                state = fold(state ^ base.loadUnaligned(fromByteOffset: offset, as: UInt64.self), 0x9E37_79B9_7F4A_7C15)
                offset += 8
            }
            let remaining = count - offset
            let tail: UInt64
            if remaining == 8 {
                tail = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            } else if remaining >= 4 {
                let low = UInt64(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                let high = UInt64(base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
                tail = low | high << 32
            } else {
                let first = UInt64(bytes[offset]), middle = UInt64(bytes[offset + remaining / 2]), last = UInt64(bytes[count - 1])
                tail = first | middle << 8 | last << 16
            }
            return fold(state ^ tail, 0xD6E8_FEB8_6659_FD93 ^ seed)
        }
    }

    /// The high and low halves of the full product, combined: every bit of
    /// both inputs reaches the result (wyhash's mixing step).
    @inline(__always)
    private static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }
}

extension MapEntries: Sequence {
    /// Each key with its ops, in the order the keys were added.
    func makeIterator() -> some IteratorProtocol<(key: MapKey, value: KeyOps)> {
        zip(keys, ops).lazy.map { (key: $0, value: $1) }.makeIterator()
    }
}

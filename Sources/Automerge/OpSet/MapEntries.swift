/// The ops of one map object, by key: the keys in the order they first
/// appeared, each with its ops (sorted by op id), found through a
/// ``MapKeyTable`` of their hashes once there are more than
/// ``linearScanLimit`` of them, by comparing keys until then.
///
/// Most maps of real documents are records of a few keys, and their key
/// table (three arrays) cost more than their ops: 12,000 small objects took
/// 140 bytes a map in tables that a scan of at most eight short keys does
/// without.
///
/// `Dictionary` hashed every key with a freshly seeded SipHash, twice per
/// put (a check, then the modify), and seeding alone was a tenth of a put.
/// Here a key is hashed once per access with a folded 128-bit multiply over
/// its UTF-8 bytes, seeded per process so that a peer cannot choose keys
/// that collide. Keys are never removed: a deleted key keeps its ops (they
/// carry the delete as a successor).
struct MapEntries: Sendable {
    /// Every key with its ops, in the order the keys were added, in chunks:
    /// a million keys' ops (inline, see ``KeyOps``) in an array grown by
    /// doubling wrote twice their bytes into fresh pages (see ``ChunkedList``).
    /// Empty while the keys are packed.
    private var ops = ChunkedList<KeyOps>()
    /// Where each key is, by its hash; nil while the map has at most
    /// ``linearScanLimit`` keys. Behind a reference: most maps have none,
    /// and the table's 40 bytes inline took that much more of every map.
    private var tableBox: KeyTableBox?
    /// A loaded small map's keys as bytes, until its first write (see ``PackedMap``).
    private var packed: PackedMap?

    /// The most keys a map finds by comparing each.
    static let linearScanLimit = 8

    init() {}

    var count: Int {
        if let packed { return packed.count }
        return ops.count
    }
    var isEmpty: Bool { count == 0 }

    /// Every key, in the order it was added.
    var keys: [MapKey] {
        if packed != nil { return map(\.key) }
        return ops.map(\.key)
    }

    /// Whether the keys are packed (see ``PackedMap``).
    var isPacked: Bool { packed != nil }

    /// The heap bytes of the packed keys (0 unless packed).
    var packedByteCount: Int { packed?.byteCount ?? 0 }

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
            // Not through `self[opsAt:]` or `??`: either copied the whole
            // entries (a retain of each array) on a local put's read.
            if let packed { return packed.keyOps(at: index) }
            return ops[index]
        }
    }

    /// Packs what a load built: a small map whose ops all pack, whole,
    /// into `blocks` (``PackedMap``); any other map, the ops of each key
    /// that can be (``KeyOps/pack()``), giving the key list no more room
    /// than it takes.
    mutating func packKeys(into blocks: inout PackedMap.Blocks) {
        guard packed == nil else { return }
        if tableBox == nil, let whole = PackedMap(ops, into: &blocks) {
            packed = whole
            ops = ChunkedList()
            return
        }
        for index in ops.indices where ops[index].count > 1 { ops[index].pack() }
        ops.shrinkToFit()
    }

    /// How many keys of several ops hold them packed (as a key's
    /// ``PackedKeyOps`` or in a ``PackedMap``).
    var packedKeyCount: Int {
        if packed != nil { return reduce(0) { $0 + ($1.value.count > 1 ? 1 : 0) } }
        return ops.reduce(0) { $0 + ($1.isPacked ? 1 : 0) }
    }

    /// Turns packed keys back into a key list, for a write.
    private mutating func unpack() {
        guard let whole = packed else { return }
        ops = whole.unpacked()
        packed = nil
    }

    /// Adds `op`, which overwrites nothing, to the ops of `key` (whose
    /// ``hash(_:)`` is `hash`), adding the key if it has none; returns the
    /// key's position in the key order.
    ///
    /// Here rather than in the op set, so that it reaches the table through
    /// a mutating access: a lookup read through `maps[i]` copied
    /// the whole entries value (retains of each array) on every put.
    mutating func add(_ op: consuming Op, to key: MapKey, hash: UInt64, actors: ActorTable) -> Int {
        assert(hash == Self.hash(key), "hash of another key")
        unpack()
        if let index = find(key, hash: hash) {
            // The key has ops (overwritten, or concurrent with `op`): it joins them.
            ops[index].appendSorted(op, actors: actors)
            return index
        }
        return add(KeyOps(consume op), hash: hash)
    }

    /// Adds `op`, a local put of a scalar, to the ops of `key` (whose
    /// ``hash(_:)`` is `hash`) unless the key has ops visible now: then
    /// nothing changes and those ops are returned, for the caller to resolve
    /// the put as an overwrite. One lookup for the check and the add; the
    /// op is given by its fields, as a new key stores it (no ``Op`` built).
    mutating func addUnlessVisible(put id: OpId, value: Primitive, to key: MapKey, hash: UInt64, actors: ActorTable) -> LocalPut {
        assert(hash == Self.hash(key), "hash of another key")
        unpack()
        guard let index = find(key, hash: hash) else {
            return .added(keyPosition: add(KeyOps(key: key, put: id, value: value), hash: hash))
        }
        let visible = ops[index].visibleOps
        guard visible.isEmpty else { return .visible(visible) }
        ops[index].appendSorted(Op(id: id, action: .set, insert: false, key: .map(key), value: value), actors: actors)
        return .added(keyPosition: index)
    }

    /// What ``addUnlessVisible(put:value:to:hash:actors:)`` did.
    enum LocalPut {
        /// The op was added; the key is at `keyPosition` in the key order.
        case added(keyPosition: Int)
        /// The op was not added: the key has these visible ops.
        case visible([Op])
    }

    /// Applies a map op to the ops of `key` (see ``KeyOps/apply(_:successor:actors:)``);
    /// returns the key's position, nil for a delete of a key that never had
    /// ops (which changes nothing and adds no key).
    mutating func apply(_ change: ChangeOp, successor: Successor, to key: MapKey, hash: UInt64, actors: ActorTable) -> Int? {
        assert(hash == Self.hash(key), "hash of another key")
        unpack()
        if let index = find(key, hash: hash) {
            ops[index].apply(change, successor: successor, actors: actors)
            return index
        }
        // A new key: nothing to overwrite, and a delete adds nothing.
        if change.action == .delete { return nil }
        return add(KeyOps(change.storedOp), hash: hash)
    }

    /// The key at `index` in the key order (that of ``keys``), with its ops.
    subscript(opsAt index: Int) -> KeyOps {
        get {
            if let packed { return packed.keyOps(at: index) }
            return ops[index]
        }
        _modify {
            unpack()
            yield &ops[index]
        }
    }

    // MARK: Table

    /// The position of `key`, whose ``hash(_:)`` is `hash`, in the key order; nil if absent.
    @inline(__always)
    func find(_ key: MapKey, hash: UInt64) -> Int? {
        if let packed { return packed.position(of: key) }
        guard let box = tableBox else {
            for position in 0..<ops.count where ops.withElement(at: position, { $0.pointee.key == key }) { return position }
            return nil
        }
        var probe = box.table.probe(hash)
        while let position = box.table.nextCandidate(&probe) {
            if ops.withElement(at: position, { $0.pointee.key == key }) { return position }
        }
        return nil
    }

    /// Adds a key that the map does not hold, with its ops; returns its position.
    private mutating func add(_ keyOps: consuming KeyOps, hash: UInt64) -> Int {
        assert(hash == Self.hash(keyOps.key), "hash of another key")
        if tableBox == nil {
            if ops.count < Self.linearScanLimit {
                ops.append(consume keyOps)
                return ops.count - 1
            }
            let box = KeyTableBox(MapKeyTable())
            for existing in ops { _ = box.table.append(hash: Self.hash(existing.key)) }
            tableBox = box
        } else if !isKnownUniquelyReferenced(&tableBox!) {
            tableBox = KeyTableBox(tableBox!.table)  // shared with a fork: copied on its first write
        }
        let index = tableBox!.table.append(hash: hash)
        ops.append(consume keyOps)  // moved: a copy retained each of the op's fields
        assert(ops.count == table.count)
        return index
    }

    /// The key table (empty while the map has none).
    var table: MapKeyTable { tableBox?.table ?? MapKeyTable() }

    /// A map's key table, shared by copies of the map until one writes
    /// (``add(_:hash:)`` copies it unless uniquely referenced).
    private final class KeyTableBox: @unchecked Sendable {
        /// Read without dynamic exclusivity checks: only the map that holds
        /// the box uniquely writes it, in ``add(_:hash:)``.
        @exclusivity(unchecked) var table: MapKeyTable

        init(_ table: MapKeyTable) { self.table = table }
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
    func makeIterator() -> Iterator { Iterator(entries: self) }

    struct Iterator: IteratorProtocol {
        let entries: MapEntries
        var position = 0

        mutating func next() -> (key: MapKey, value: KeyOps)? {
            guard position < entries.count else { return nil }
            defer { position += 1 }
            let keyOps = entries[opsAt: position]
            return (keyOps.key, keyOps)
        }
    }

    var underestimatedCount: Int { count }
}

#if DEBUG
/// Write access for the tests that break the entries on purpose to show
/// that ``checkInvariants()`` reports it (debug builds only).
extension MapEntries {
    var opsForTesting: ChunkedList<KeyOps> {
        get { packed?.unpacked() ?? ops }
        set { (ops, packed) = (newValue, nil) }
    }
    var tableForTesting: MapKeyTable {
        get { table }
        set { tableBox = newValue.count == 0 ? nil : KeyTableBox(newValue) }
    }
}
#endif

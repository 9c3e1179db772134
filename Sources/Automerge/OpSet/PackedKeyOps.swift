/// The ops of a map key kept as bytes: about 8 bytes a put where an ``Op``
/// takes 96, for keys a document overwrote a few times (a loaded settings
/// map, a counter of puts): the map side of ``PackedLeaf``.
///
/// A load packs every key whose ops are all plain (no insert flag, mark
/// name or expand flag, at most one successor and that no increment) and
/// that holds at most ``maxOps`` of them, so that reading op `i` by a scan
/// from the first stays cheap whatever a document holds. Reads decode in
/// place; the first write to the key unpacks it (``KeyOps``).
///
/// Layout (numbers are LEB128 unless a byte): the op count (a byte), then
/// per op its action (a byte), its id (actor, counter), whether a
/// successor follows (a byte) and that successor's actor and counter,
/// then its value (``PackedValue``).
struct PackedKeyOps: Sendable {
    /// The most ops a packed key holds.
    static let maxOps = 16

    private let bytes: [UInt8]

    /// `ops` packed, or nil if one of them is not plain or there are more than ``maxOps``.
    init?(_ ops: [Op]) {
        guard ops.count >= 2, let size = Self.packedSize(of: ops) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(size)
        Self.append(ops, to: &out)
        bytes = out
    }

    /// Whether `op` can be packed: no insert flag, mark name or expand
    /// flag, and at most one successor, that no increment.
    static func isPlain(_ op: borrowing Op) -> Bool {
        !op.insert && !op.expand && op.markName == nil && op.successors.count <= 1
            && (op.successors.count == 0 || op.successors[0].increment == nil)
    }

    /// The bytes `ops` pack into (their count included), or nil if one is
    /// not plain or there are more than ``maxOps``.
    static func packedSize<Ops: Collection<Op>>(of ops: Ops) -> Int? {
        guard ops.count <= maxOps else { return nil }
        var size = 1
        for op in ops {
            guard isPlain(op) else { return nil }
            size += 2 + op.id.packedSize + PackedValue.size(of: op.value)
            if op.successors.count == 1 { size += op.successors[0].id.packedSize }
        }
        return size
    }

    /// Appends the count and the ops, which must be packable (``packedSize(of:)``).
    static func append<Ops: Collection<Op>>(_ ops: Ops, to out: inout [UInt8]) {
        out.append(UInt8(ops.count))
        for op in ops {
            out.append(op.action.rawValue)
            op.id.appendPacked(to: &out)
            if op.successors.count == 1 {
                out.append(1)
                op.successors[0].id.appendPacked(to: &out)
            } else {
                out.append(0)
            }
            PackedValue.append(op.value, to: &out)
        }
    }

    var count: Int { Int(bytes[0]) }

    /// The heap bytes the key's ops take.
    var byteCount: Int { bytes.capacity }

    /// Op `position`, decoded, with `key` as its key.
    @inline(never) @_effects(readonly)
    func op(at position: Int, key: MapKey) -> Op {
        bytes.withUnsafeBufferPointer { bytes in
            var cursor = 1
            for _ in 0..<position { Self.skipOp(bytes, at: &cursor) }
            return Self.readOp(bytes, at: &cursor, key: key)
        }
    }

    /// Every op, decoded, with `key` as its key.
    @inline(never) @_effects(readonly)
    func ops(key: MapKey) -> [Op] {
        bytes.withUnsafeBufferPointer { bytes in
            var cursor = 0
            return Self.readOps(bytes, at: &cursor, key: key)
        }
    }

    /// Reads a count and that many ops (as ``append(_:to:)`` wrote them)
    /// at `cursor`, advancing it past them.
    static func readOps(_ bytes: UnsafeBufferPointer<UInt8>, at cursor: inout Int, key: MapKey) -> [Op] {
        let count = Int(bytes[cursor])
        cursor += 1
        var ops: [Op] = []
        ops.reserveCapacity(count + 1)
        for _ in 0..<count { ops.append(readOp(bytes, at: &cursor, key: key)) }
        return ops
    }

    /// Moves `cursor` past a count and that many ops.
    static func skipOps(_ bytes: UnsafeBufferPointer<UInt8>, at cursor: inout Int) {
        let count = Int(bytes[cursor])
        cursor += 1
        for _ in 0..<count { skipOp(bytes, at: &cursor) }
    }

    static func readOp(_ bytes: UnsafeBufferPointer<UInt8>, at cursor: inout Int, key: MapKey) -> Op {
        let action = OpAction(rawValue: bytes[cursor])!
        cursor += 1
        let id = OpId.readPacked(bytes, at: &cursor)
        let hasSuccessor = bytes[cursor] == 1
        cursor += 1
        let successors = hasSuccessor ? SuccessorList(only: OpId.readPacked(bytes, at: &cursor)) : SuccessorList()
        let value = PackedValue.read(bytes, at: &cursor)
        return Op(id: id, action: action, insert: false, key: .map(key), value: value, successors: successors)
    }

    static func skipOp(_ bytes: UnsafeBufferPointer<UInt8>, at cursor: inout Int) {
        cursor += 1
        _ = OpId.readPacked(bytes, at: &cursor)
        let hasSuccessor = bytes[cursor] == 1
        cursor += 1
        if hasSuccessor { _ = OpId.readPacked(bytes, at: &cursor) }
        PackedValue.skip(bytes, at: &cursor)
    }
}

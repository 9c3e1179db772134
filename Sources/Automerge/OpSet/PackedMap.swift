/// The keys of a small loaded map, each with its ops, kept as bytes: about
/// 15 bytes a key holding one put, where a ``KeyOps`` takes 64 and the
/// key list an array of its own. Most objects of real documents are
/// records of a few keys that a load builds and nothing writes again
/// (12,000 small objects spent 240 bytes a record map on its key list).
///
/// A load packs each map of at most ``maxKeys`` keys whose ops are all
/// plain (``PackedKeyOps/isPlain(_:)``), at most ``PackedKeyOps/maxOps`` a
/// key. Reads scan and decode in place; the map's first write unpacks it
/// (``MapEntries``). Keys stay in the order they were added.
///
/// Layout: the key count (a byte), then per key its UTF-8 length (LEB128),
/// its bytes, and its ops as ``PackedKeyOps`` lays them out (a count, then
/// each op).
struct PackedMap: Sendable {
    /// The most keys a packed map holds: maps found by scanning their keys
    /// (``MapEntries/linearScanLimit``), so a packed map needs no key table.
    static let maxKeys = MapEntries.linearScanLimit

    /// The block holding the map's bytes, at `start..<end`.
    private let block: Block
    private let start: UInt32
    private let end: UInt32

    /// `keys` packed into `blocks`, or nil if there are more than
    /// ``maxKeys`` or one of their ops cannot be packed.
    init?(_ keys: ChunkedList<KeyOps>, into blocks: inout Blocks) {
        guard !keys.isEmpty, keys.count <= Self.maxKeys else { return nil }
        var size = 1
        for keyOps in keys {
            guard let opsSize = PackedKeyOps.packedSize(of: keyOps) else { return nil }
            let length = keyOps.key.withBytes(\.count)
            size += LEB128.unsignedSize(UInt64(length)) + length + opsSize
        }
        (block, start, end) = blocks.write(size) { out in
            out.append(UInt8(keys.count))
            for keyOps in keys {
                keyOps.key.withBytes { key in
                    LEB128.appendUnsigned(UInt64(key.count), to: &out)
                    out.append(contentsOf: key)
                }
                PackedKeyOps.append(keyOps, to: &out)
            }
        }
    }

    /// Reads the map's bytes in place.
    @inline(__always)
    private func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        block.bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[Int(start)..<Int(end)])) }
    }

    /// The number of keys.
    var count: Int { withBytes { Int($0[0]) } }

    /// The bytes the map's keys and ops take.
    var byteCount: Int { Int(end - start) }

    /// The position of `key` in the key order, or nil if absent. Out of
    /// line and read-only, as ``PackedKeyOps``' reads (docs/decisions.md,
    /// "In-memory op set"): a caller reading the map through a pointer
    /// then keeps it in place.
    @inline(never) @_effects(readonly)
    func position(of key: MapKey) -> Int? {
        key.withBytes { wanted in
            withBytes { bytes in
                var cursor = 1
                for position in 0..<Int(bytes[0]) {
                    let key = Self.readKey(bytes, at: &cursor)
                    if key.count == wanted.count && key.elementsEqual(wanted) { return position }
                    PackedKeyOps.skipOps(bytes, at: &cursor)
                }
                return nil
            }
        }
    }

    /// The key at `position` in the key order, with its ops.
    @inline(never) @_effects(readonly)
    func keyOps(at position: Int) -> KeyOps {
        precondition(position >= 0 && position < count, "index out of range")
        return withBytes { bytes in
            var cursor = 1
            for _ in 0..<position {
                _ = Self.readKey(bytes, at: &cursor)
                PackedKeyOps.skipOps(bytes, at: &cursor)
            }
            return Self.readKeyOps(bytes, at: &cursor)
        }
    }

    /// Every key with its ops, in the key order.
    func unpacked() -> ChunkedList<KeyOps> {
        withBytes { bytes in
            var keys = ChunkedList<KeyOps>()
            var cursor = 1
            for _ in 0..<Int(bytes[0]) { keys.append(Self.readKeyOps(bytes, at: &cursor)) }
            return keys
        }
    }

    private static func readKeyOps(_ bytes: UnsafeBufferPointer<UInt8>, at cursor: inout Int) -> KeyOps {
        let key = MapKey(String(decoding: readKey(bytes, at: &cursor), as: UTF8.self))
        return KeyOps(key: key, ops: PackedKeyOps.readOps(bytes, at: &cursor, key: key))
    }

    /// The UTF-8 bytes of the key at `cursor`, moving it past them.
    private static func readKey(_ bytes: UnsafeBufferPointer<UInt8>, at cursor: inout Int) -> UnsafeBufferPointer<UInt8> {
        let length = Int(LEB128.readTrusted(bytes, at: &cursor) as UInt64)
        defer { cursor += length }
        return UnsafeBufferPointer(rebasing: bytes[cursor..<cursor + length])
    }
}

extension PackedMap {
    /// A block of packed maps' bytes, shared by the maps packed into it.
    /// Written only by the ``Blocks`` of the load that made it, before the
    /// document is handed out, and never after.
    final class Block: @unchecked Sendable {
        fileprivate(set) var bytes: [UInt8]

        fileprivate init(capacity: Int) {
            bytes = []
            bytes.reserveCapacity(capacity)
        }
    }

    /// Where a load packs its maps: blocks of ``blockSize`` bytes, each
    /// reserved whole and never grown (a map's bytes do not move once
    /// written), so that a map of a few keys costs its bytes and no heap
    /// block of its own (an array each took 48 bytes more a map in its
    /// header and the allocator's rounding). A map larger than a block
    /// gets one of its own size.
    struct Blocks {
        static let blockSize = 32 * 1024

        private var current: Block?

        init() {}

        /// Appends `size` bytes that `write` appends; returns where they are.
        fileprivate mutating func write(_ size: Int, _ write: (inout [UInt8]) -> Void) -> (Block, UInt32, UInt32) {
            precondition(size <= Int(UInt32.max), "packed map too large")
            if current == nil || current!.bytes.count + size > current!.bytes.capacity {
                current = Block(capacity: Swift.max(Self.blockSize, size))
            }
            let block = current!
            let start = block.bytes.count
            write(&block.bytes)
            precondition(block.bytes.count == start + size, "packed map size miscounted")
            return (block, UInt32(start), UInt32(block.bytes.count))
        }

        /// Gives the last block back the room the load did not fill.
        mutating func trimLastBlock() {
            current?.bytes.shrinkToFit()
            current = nil
        }
    }
}

/// The bytes of a history's changes, appended end to end into blocks of
/// about 256 KiB: a change's bytes cost no heap block of their own.
///
/// The first block grows like an array (a short history costs what its
/// bytes do); once it is full each new block is reserved whole. A run of
/// bytes longer than a block gets a block of its own size. Blocks are
/// values: a copy of the store (a fork) shares them until one side
/// appends, which copies the last block alone.
struct ChangeByteStore: Sendable {
    /// Where a run of bytes starts: its block, and its offset in it.
    struct Location: Sendable, Equatable {
        let block: UInt32
        let offset: UInt32
    }

    /// The size a block is reserved at once the first one is full.
    static let blockSize = 256 * 1024

    /// The full blocks, in order.
    private var full: [[UInt8]] = []
    /// The block being filled.
    private var tail: [UInt8] = []

    init() {}

    /// Appends a change's bytes, its message's UTF-8 and its extra bytes
    /// end to end, in one block; returns where they start.
    mutating func append(_ bytes: [UInt8], message: String?, extraBytes: [UInt8]) -> Location {
        append(count: bytes.count, message: message, extraBytes: extraBytes) { $0.append(contentsOf: bytes) }.location
    }

    /// ``append(_:message:extraBytes:)`` of the `count` bytes `write`
    /// appends to the block, written in place; also returns what `write` does.
    mutating func append<Result>(
        count: Int, message: String?, extraBytes: [UInt8], write: (inout [UInt8]) -> Result
    ) -> (location: Location, result: Result) {
        let total = count + (message?.utf8.count ?? 0) + extraBytes.count
        precondition(total <= Int(UInt32.max), "change too large")
        if !tail.isEmpty, tail.count + total > Self.blockSize {
            full.append(tail)
            tail = []
            tail.reserveCapacity(Swift.max(Self.blockSize, total))
        }
        precondition(full.count < Int(UInt32.max), "change store full")
        let location = Location(block: UInt32(full.count), offset: UInt32(tail.count))
        let result = write(&tail)
        precondition(tail.count == Int(location.offset) + count, "a change's bytes have the length given")
        if let message { tail.append(contentsOf: message.utf8) }
        tail.append(contentsOf: extraBytes)
        return (location, result)
    }

    /// The `count` bytes at `location` and after.
    subscript(location: Location, count count: Int) -> ArraySlice<UInt8> {
        let start = Int(location.offset)
        let block = Int(location.block)
        return block < full.count ? full[block][start..<start + count] : tail[start..<start + count]
    }

    /// The heap bytes the blocks take.
    var byteCount: Int { full.reduce(tail.capacity) { $0 + $1.capacity } }
}

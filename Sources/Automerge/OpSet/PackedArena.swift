/// Where a sequence tree keeps the bytes of its packed leaves
/// (``PackedLeaf``): blocks of many leaves each, the first sized to the
/// first leaf and the next growing from 256 bytes to 64 KiB, so that a
/// text of a million characters takes a few dozen allocations, not one
/// per leaf of 64 (whose array headers and allocator rounding cost as
/// much again as the leaves' bytes).
///
/// Blocks are reserved at their full size and never grow, so a load makes
/// no copies and leaves no holes; the last block is trimmed when the load
/// ends (``trimLastBlock()``). Leaves unpacked for an edit leave their
/// bytes behind, counted in ``deadBytes``; the tree copies the live ones
/// to a new arena once they are half of it (``needsCompaction``).
struct PackedArena: Sendable {
    /// A leaf's bytes: `start..<end` of block `block`.
    struct Place: Equatable, Sendable {
        var block: UInt32
        var start: UInt32
        var end: UInt32

        static let none = Place(block: 0, start: 0, end: 0)
    }

    static let secondBlockSize = 256
    static let largestBlockSize = 65_536

    /// Block 0, sized to the first leaf packed: most sequences of a
    /// document of many objects are one leaf, and then take one allocation.
    private var firstBlock: [UInt8] = []
    /// Blocks 1 and on.
    private var laterBlocks: [[UInt8]] = []
    /// The bytes of every leaf written, live or not (32 bits as the
    /// places are: a tree per short list keeps the arena beside it).
    private(set) var byteCount: UInt32 = 0
    /// The bytes of leaves released since they were written.
    private(set) var deadBytes: UInt32 = 0

    init() {}

    /// How many blocks the arena has.
    var blockCount: Int { firstBlock.capacity == 0 ? 0 : 1 + laterBlocks.count }

    /// Whether the live leaves are half the arena or less.
    var needsCompaction: Bool { deadBytes > 0 && deadBytes >= byteCount - deadBytes }

    /// The heap the blocks hold.
    var capacity: Int { laterBlocks.reduce(firstBlock.capacity) { $0 + $1.capacity } }

    /// Packs `elements` into the arena and returns where, or nil if any
    /// element is not plain (see ``PackedLeaf``).
    mutating func pack(_ elements: UnsafeBufferPointer<SequenceElement>) -> Place? {
        guard let layout = PackedLeaf.layout(of: elements), let block = reserve(layout.size) else { return nil }
        return write(layout.size, to: block) { PackedLeaf.append(elements, layout, to: &$0) }
    }

    /// Copies a leaf's bytes from another arena (compaction).
    mutating func copy(_ bytes: ArraySlice<UInt8>) -> Place {
        write(bytes.count, to: reserve(bytes.count)!) { writer in bytes.withUnsafeBufferPointer { writer.append(contentsOf: $0) } }
    }

    /// The bytes at `place`.
    @inline(__always)
    func bytes(at place: Place) -> ArraySlice<UInt8> {
        let range = Int(place.start)..<Int(place.end)
        return place.block == 0 ? firstBlock[range] : laterBlocks[Int(place.block) - 1][range]
    }

    /// Whether `place` names bytes the arena holds (for invariant checks).
    func holds(_ place: Place) -> Bool {
        guard Int(place.block) < blockCount, place.start < place.end else { return false }
        return Int(place.end) <= (place.block == 0 ? firstBlock.count : laterBlocks[Int(place.block) - 1].count)
    }

    /// Counts the leaf at `place` as dead: it was unpacked.
    mutating func release(_ place: Place) {
        deadBytes += place.end - place.start
    }

    /// Gives the last block back the room a load did not fill.
    mutating func trimLastBlock() {
        guard let last = laterBlocks.indices.last else { return }
        laterBlocks[last].shrinkToFit()
    }

    /// The block `size` more bytes go to, with room for them: the last
    /// block, or a new one. Nil past what 32-bit places can name.
    private mutating func reserve(_ size: Int) -> Int? {
        guard size <= Int(UInt32.max - byteCount) else { return nil }
        if firstBlock.capacity == 0 {
            firstBlock.reserveCapacity(size)
            return 0
        }
        let last = laterBlocks.last ?? firstBlock
        if last.capacity - last.count >= size { return laterBlocks.count }
        guard laterBlocks.count < Int(UInt32.max) - 1 else { return nil }
        var block: [UInt8] = []
        block.reserveCapacity(Swift.max(size, Swift.min(Swift.max(last.capacity * 2, Self.secondBlockSize), Self.largestBlockSize)))
        laterBlocks.append(block)
        return laterBlocks.count
    }

    /// Appends `size` bytes to `block`, written by `body` in place, and
    /// returns their place.
    private mutating func write(_ size: Int, to block: Int, _ body: (inout UnsafeByteWriter) -> Void) -> Place {
        func fill(_ bytes: inout [UInt8]) -> Int {
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: size))
            bytes.withUnsafeMutableBufferPointer { buffer in
                var writer = UnsafeByteWriter(UnsafeMutableBufferPointer(rebasing: buffer[start...]))
                body(&writer)
                precondition(writer.count == size, "a packed leaf's size was not its bytes")
            }
            return start
        }
        let start = block == 0 ? fill(&firstBlock) : fill(&laterBlocks[block - 1])
        byteCount += UInt32(size)
        return Place(block: UInt32(block), start: UInt32(start), end: UInt32(start + size))
    }
}

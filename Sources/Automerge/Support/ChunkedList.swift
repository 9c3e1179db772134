/// An append-only list kept in chunks that are never moved.
///
/// An array grows by doubling: each time, its elements move into a new
/// buffer twice the size, so building a list of n elements writes about 2n
/// elements' worth of fresh memory. On the VMs this runs on, touching a
/// fresh 4 KiB page costs about 2 µs, and an open transaction's log of a
/// million 96-byte ops built that way was a third of the time of typing
/// them. Here the first chunk grows like an array (a small list costs what
/// an array would), up to ``chunkCapacity`` elements (a power of two, about
/// 256 KiB); after that each chunk is allocated at its full size once.
struct ChunkedList<Element: Sendable>: Sendable, RandomAccessCollection, MutableCollection {
    /// log2 of ``chunkCapacity``.
    static var chunkShift: Int {
        let elements = Swift.max(16, 256 * 1024 / Swift.max(1, MemoryLayout<Element>.stride))
        return Int.bitWidth - 1 - elements.leadingZeroBitCount
    }

    /// The most elements a chunk holds.
    static var chunkCapacity: Int { 1 << chunkShift }

    /// The elements, in order, chunk by chunk; every chunk but the last is full.
    private(set) var chunks: [[Element]] = []
    /// The number of elements.
    private(set) var count = 0

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "index out of range")
            return chunks[index >> Self.chunkShift][index & (Self.chunkCapacity - 1)]
        }
        _modify {
            precondition(index >= 0 && index < count, "index out of range")
            yield &chunks[index >> Self.chunkShift][index & (Self.chunkCapacity - 1)]
        }
    }

    /// Adds `element` at the end.
    mutating func append(_ element: consuming Element) {
        if chunks.isEmpty {
            chunks.append([])
        } else if chunks[chunks.count - 1].count == Self.chunkCapacity {
            var chunk: [Element] = []
            chunk.reserveCapacity(Self.chunkCapacity)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(consume element)
        count += 1
    }
}

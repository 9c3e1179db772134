/// An append-only list kept in chunks that are never moved.
///
/// An array grows by doubling: each time, its elements move into a new
/// buffer twice the size, so building a list of n elements writes about 2n
/// elements' worth of fresh memory, and fresh pages are slow to touch: an
/// open transaction's log of a million ops built that way was a third of
/// the time of typing them (docs/performance.md). Here the first chunk grows like an array (a small list costs what
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

    /// The full chunks, in order.
    private var full: [[Element]] = []
    /// The last chunk, not full: appends write it directly, where reaching
    /// it through the array of chunks checked both arrays' uniqueness (a
    /// third of an append).
    private var tail: [Element] = []
    /// The number of elements.
    private(set) var count = 0

    init() {}

    /// The elements, in order, chunk by chunk; every chunk but the last is full.
    var chunks: [[Element]] { tail.isEmpty ? full : full + [tail] }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    /// The chunk (an index into ``full``, or ``full``'s count for the tail)
    /// and offset of element `index`, which must be in range.
    @inline(__always)
    private func place(of index: Int) -> (chunk: Int, offset: Int) {
        precondition(index >= 0 && index < count, "index out of range")
        return (index >> Self.chunkShift, index & (Self.chunkCapacity - 1))
    }

    subscript(index: Int) -> Element {
        get {
            let (chunk, offset) = place(of: index)
            return chunk < full.count ? full[chunk][offset] : tail[offset]
        }
        _modify {
            let (chunk, offset) = place(of: index)
            if chunk < full.count { yield &full[chunk][offset] } else { yield &tail[offset] }
        }
    }

    /// Calls `body` with the element at `index` in place (a copy would
    /// retain and release what the element refers to).
    @inline(__always)
    func withElement<R>(at index: Int, _ body: (UnsafePointer<Element>) -> R) -> R {
        let (chunk, offset) = place(of: index)
        if chunk < full.count { return full[chunk].withUnsafeBufferPointer { body($0.baseAddress! + offset) } }
        return tail.withUnsafeBufferPointer { body($0.baseAddress! + offset) }
    }

    /// Gives the last chunk no more room than its elements take: a loaded
    /// map's key list, grown by doubling, held up to twice its keys' bytes
    /// (about 60 bytes a map of a few keys), and most maps stop growing.
    mutating func shrinkToFit() { tail.shrinkToFit() }

    /// Adds `element` at the end.
    mutating func append(_ element: consuming Element) {
        if tail.count == Self.chunkCapacity {
            full.append(tail)
            tail = []
            tail.reserveCapacity(Self.chunkCapacity)
        }
        tail.append(consume element)
        count += 1
    }
}

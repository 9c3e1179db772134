/// An append-only list kept in chunks that are never moved.
///
/// An array grows by doubling: each time, its elements move into a new
/// buffer twice the size, so building a list of n elements writes about 2n
/// elements' worth of fresh memory. On the VMs this runs on, touching a
/// fresh 4 KiB page costs about 2 µs, and an open transaction's log of a
/// million 96-byte ops built that way was a third of the time of typing
/// them. Here the first chunk grows like an array (a small transaction
/// costs what an array would), up to ``chunkBytes``; after that each chunk
/// is allocated at its full size once.
struct ChunkedList<Element: Sendable>: Sendable {
    /// About how many bytes a full chunk holds.
    static var chunkBytes: Int { 256 * 1024 }

    /// The most elements a chunk holds.
    static var chunkCapacity: Int { max(16, chunkBytes / max(1, MemoryLayout<Element>.stride)) }

    /// The elements, in order, chunk by chunk; every chunk but the last is full.
    private(set) var chunks: [[Element]] = []
    /// The number of elements.
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    /// Adds `element` at the end.
    mutating func append(_ element: consuming Element) {
        if chunks.isEmpty {
            chunks.append([])
        } else if chunks[chunks.count - 1].count == Self.chunkCapacity {
            var chunk: [Element] = []
            chunk.reserveCapacity(Self.chunkCapacity)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(element)
        count += 1
    }
}

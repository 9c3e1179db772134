import CZlib
import Dispatch

/// The columns of a save, deflated as one batch spread over the machine's
/// cores.
///
/// A long input is cut into pieces of ``pieceSize`` bytes that are deflated
/// independently, each primed with the 32 KiB before it as its dictionary
/// and ended with a sync flush (an empty stored block that byte-aligns it);
/// only the last piece ends the stream. Their concatenation is one valid
/// raw DEFLATE stream, as pigz writes: any inflater reads it, and matches
/// across a cut are still found through the dictionary, so it is within a
/// fraction of a percent of one piece's size. Pieces, not whole columns,
/// are what balances the cores: a text's characters are most of a save's
/// compressed bytes (moby-dick's 1.25 MB value column alone took 80 ms at
/// level 6).
///
/// The bytes depend only on the inputs and their levels, never on how many
/// cores ran the pieces: the cuts are at fixed offsets.
extension Deflate {
    /// The length of the independently deflated pieces of a long input.
    static let pieceSize = 64 * 1024
    /// Batches totalling at least this many bytes run on several threads:
    /// below it, handing work to other threads costs more than it saves
    /// (zlib manages about 25 MB/s at level 6, so 128 KiB is ~5 ms).
    static let concurrencyThreshold = 128 * 1024

    /// Compresses each input as raw DEFLATE (cut into pieces as described
    /// above). `concurrently` is for tests; by default a batch runs on
    /// several threads from ``concurrencyThreshold`` bytes.
    static func compress(each inputs: [[UInt8]], level: Int32 = defaultLevel, concurrently: Bool? = nil) -> [[UInt8]] {
        compress(each: inputs.map { ($0, level) }, concurrently: concurrently)
    }

    /// Compresses each input at its own level, as above.
    static func compress(each inputs: [(bytes: [UInt8], level: Int32)], concurrently: Bool? = nil) -> [[UInt8]] {
        let pieces = inputs.indices.flatMap { index in
            stride(from: 0, to: max(inputs[index].bytes.count, 1), by: pieceSize).map { start in
                let end = min(inputs[index].bytes.count, start + pieceSize)
                return Piece(input: index, range: start..<end, isLast: end == inputs[index].bytes.count)
            }
        }
        let total = inputs.reduce(0) { $0 + $1.bytes.count }
        let results = PieceResults(count: pieces.count)
        defer { results.deallocate() }
        if concurrently ?? (pieces.count > 1 && total >= concurrencyThreshold) {
            // Largest first, so that no long piece starts last.
            let order = pieces.indices.sorted { pieces[$0].range.count > pieces[$1].range.count }
            DispatchQueue.concurrentPerform(iterations: order.count) { position in
                let piece = pieces[order[position]]
                let (bytes, level) = inputs[piece.input]
                results.store(compress(bytes, range: piece.range, finishing: piece.isLast, level: level), at: order[position])
            }
        } else {
            for (index, piece) in pieces.enumerated() {
                let (bytes, level) = inputs[piece.input]
                results.store(compress(bytes, range: piece.range, finishing: piece.isLast, level: level), at: index)
            }
        }
        var outputs = [[UInt8]](repeating: [], count: inputs.count)
        for (index, piece) in pieces.enumerated() { outputs[piece.input] += results[index] }
        return outputs
    }

    /// One piece of one input.
    private struct Piece: Sendable {
        let input: Int
        let range: Range<Int>
        /// Whether the piece ends its input (and so the DEFLATE stream).
        let isLast: Bool
    }

    /// One result per piece, each written by exactly one worker and read only
    /// after all have finished. Raw memory rather than an array: workers must
    /// not go through one array's uniqueness check and mutation at once.
    private struct PieceResults: @unchecked Sendable {
        private let slots: UnsafeMutableBufferPointer<[UInt8]>

        init(count: Int) {
            slots = .allocate(capacity: count)
            slots.initialize(repeating: [])
        }

        func store(_ value: [UInt8], at index: Int) { slots[index] = value }

        subscript(index: Int) -> [UInt8] { slots[index] }

        func deallocate() {
            _ = slots.deinitialize()
            slots.deallocate()
        }
    }
}

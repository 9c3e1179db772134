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
/// are what balances the cores: a text's characters, in one column, are
/// most of a save's compressed bytes.
///
/// The bytes depend only on the inputs and their settings, never on how
/// many threads ran the pieces or in what order: the cuts are at fixed
/// offsets.
extension Deflate {
    /// The length of the independently deflated pieces of a long input.
    static let pieceSize = 64 * 1024
    /// Batches totalling at least this many bytes run on several threads:
    /// below it, handing work to other threads costs more than it saves.
    static let concurrencyThreshold = 128 * 1024

    /// Compresses each input with its own setting, as raw DEFLATE cut into
    /// pieces as described above. `concurrently` is for tests; by default a
    /// batch runs on several threads from ``concurrencyThreshold`` bytes.
    static func compress(each inputs: [(bytes: [UInt8], setting: Setting)], concurrently: Bool? = nil) -> [[UInt8]] {
        let queue = Queue()
        let batch = queue.submit(inputs)
        queue.drain(concurrently: concurrently)
        return queue.outputs(of: batch)
    }

    /// Pieces to deflate, submitted in batches (a save's change columns,
    /// then its op columns) and deflated together by ``drain(concurrently:)``.
    final class Queue: @unchecked Sendable {
        /// Inputs submitted so far, with the pieces each was cut into.
        private var inputs: [(bytes: [UInt8], setting: Setting, pieces: [Int])] = []
        private var pieces: [Piece] = []
        /// Each piece's output, once deflated.
        private var outputs: [[UInt8]] = []
        /// The first piece no thread has taken yet.
        private var nextPiece = 0
        private var finishedPieces = 0
        private let lock = Lock()

        init() {}

        /// Submitted inputs, whose outputs ``outputs(of:)`` returns.
        struct Batch {
            fileprivate let inputs: Range<Int>
        }

        /// Adds inputs to deflate.
        func submit(_ newInputs: [(bytes: [UInt8], setting: Setting)]) -> Batch {
            lock.withLock {
                let firstInput = inputs.count, firstPiece = pieces.count
                var added: [Piece] = []
                for (offset, input) in newInputs.enumerated() {
                    let index = firstInput + offset
                    var cut: [Int] = []
                    for start in stride(from: 0, to: max(input.bytes.count, 1), by: pieceSize) {
                        let end = min(input.bytes.count, start + pieceSize)
                        cut.append(firstPiece + added.count)
                        added.append(Piece(input: index, range: start..<end, isLast: end == input.bytes.count, slot: cut.last!))
                    }
                    inputs.append((input.bytes, input.setting, cut))
                }
                // Largest first, so that no long piece starts last.
                pieces += added.sorted { $0.range.count > $1.range.count }
                outputs += Array(repeating: [], count: added.count)
                return Batch(inputs: firstInput..<inputs.count)
            }
        }

        /// Deflates everything submitted: on several threads from
        /// ``concurrencyThreshold`` bytes when the ``ExecutionPolicy`` allows
        /// (or as `concurrently`, for tests), on the caller's alone otherwise.
        func drain(concurrently: Bool? = nil) {
            let (pieceCount, bytes) = lock.withLock { (pieces.count, inputs.reduce(0) { $0 + $1.bytes.count }) }
            if concurrently ?? (pieceCount > 1 && bytes >= concurrencyThreshold && ExecutionPolicy.current.usesOtherThreads) {
                // Every iteration works through the queue: as many run at
                // once as Dispatch has cores for, and later ones find it empty.
                DispatchQueue.concurrentPerform(iterations: pieceCount) { _ in work() }
            } else {
                work()
            }
        }

        /// Deflates pieces until none is left. When every caller of `work`
        /// has returned, every piece is deflated.
        private func work() {
            lock.lock()
            defer { lock.unlock() }
            while nextPiece < pieces.count {
                let piece = pieces[nextPiece]
                nextPiece += 1
                let input = inputs[piece.input]
                lock.unlock()
                let output = compress(input.bytes, range: piece.range, finishing: piece.isLast, setting: input.setting)
                lock.lock()
                outputs[piece.slot] = output
                finishedPieces += 1
            }
        }

        /// The deflated inputs of `batch`, in the order submitted. Called
        /// once every thread's ``work()`` has returned.
        func outputs(of batch: Batch) -> [[UInt8]] {
            lock.withLock {
                precondition(finishedPieces == pieces.count, "outputs read before every piece was deflated")
                return batch.inputs.map { index in inputs[index].pieces.reduce(into: []) { $0 += outputs[$1] } }
            }
        }
    }

    /// One piece of one input.
    private struct Piece: Sendable {
        let input: Int
        let range: Range<Int>
        /// Whether the piece ends its input (and so the DEFLATE stream).
        let isLast: Bool
        /// Where its output goes among the queue's outputs.
        let slot: Int
    }
}

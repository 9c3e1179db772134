/// Decodes a run of change chunks on two cores, with the result, errors
/// included, of decoding them one after another.
///
/// A batch of received changes (`applyEncodedChanges` of thousands of
/// chunks, a file's trailing chunks) spends about a third of its time
/// verifying (hashing) and decoding them, each independently of the others
/// but for the input's row budget (``RowBudget``), which each chunk may
/// spend only as far as the chunks before it left. The run is cut in two
/// halves of about equal bytes. The first half is decoded with the budget
/// as it is, exactly as in order; the second half, beside it, starts from
/// the same budget without knowing what the first spends, so each of its
/// chunks gets at least the limit it would get in order. Then the results are taken in
/// file order, spending the real budget: a second-half chunk that failed,
/// or declared more rows than were really left, is decoded again with its
/// real limit, so that the error is the one the ordered decode throws. A
/// decode that fails under a limit fails under any lower one, so no
/// success is lost. A checksum that does not match, or a compressed
/// change that does not inflate within the limits, fails whatever the row
/// limit. Each half decodes at most the budget, so the work stays within
/// twice the ordered decode's.
enum ConcurrentChunkDecode {
    /// From this many change chunks, the second core pays for handing it
    /// half of them.
    static let threshold = 64

    /// Whether `frames` are enough change chunks, and nothing else, to decode concurrently.
    static func pays(for frames: ArraySlice<ChunkFrame>) -> Bool {
        frames.count >= threshold && frames.allSatisfy(\.isChange)
    }

    /// What one half decoded: its chunks up to the first that failed or
    /// overspent its budget, with the row limit each had.
    private struct Half {
        var decoded: [DecodedChunk] = []
        var maxRows: [Int] = []
        /// The error of the chunk after the decoded ones, and the limit it had.
        var failure: (error: LoadError, maxRows: Int)?
        /// The budget left after the decoded chunks.
        var budget: RowBudget
    }

    /// Verifies and decodes `frames` (inflating within `limits`), spending
    /// `budget` in file order; throws what the ordered decode throws first,
    /// wrapped in ``LoadError/inChunk(_:_:)``.
    static func decode(
        _ frames: ArraySlice<ChunkFrame>, verifyHeads: Bool, limits: DecodeLimits, budget: inout RowBudget
    ) throws(LoadError) -> [DecodedChunk] {
        let middle = byteMiddle(of: frames)
        let (first, second) = Concurrently.run(
            { [budget] in half(frames[..<middle], verifyHeads: verifyHeads, limits: limits, budget: budget) },
            { [budget] in
                half(frames[middle...].map { $0.unshared() }[...], verifyHeads: verifyHeads, limits: limits, budget: budget)
            })
        // The first half had the real budget: its outcome is the ordered decode's.
        if let failure = first.failure { throw .inChunk(frames[frames.startIndex + first.decoded.count].index, failure.error) }
        var decoded = first.decoded
        decoded.reserveCapacity(frames.count)
        budget = first.budget
        for (offset, chunk) in second.decoded.enumerated() {
            let index = middle + offset
            if second.maxRows[offset] == budget.limits.maxRows || chunk.rows <= budget.remaining {
                try spend(chunk.rows, of: frames[index], from: &budget)
                decoded.append(chunk)
            } else {
                decoded.append(try StorageFile.decode(frames[index], verifyHeads: verifyHeads, limits: limits, budget: &budget))
            }
        }
        if let failure = second.failure, failure.maxRows == budget.limits.maxRows {
            throw .inChunk(frames[middle + second.decoded.count].index, failure.error)
        }
        // A second-half chunk that failed under a higher limit than it really
        // had is decoded again with its own, and so are any after it.
        for frame in frames[(frames.startIndex + decoded.count)...] {
            decoded.append(try StorageFile.decode(frame, verifyHeads: verifyHeads, limits: limits, budget: &budget))
        }
        return decoded
    }

    /// The index that splits `frames` into halves of about equal stored bytes.
    private static func byteMiddle(of frames: ArraySlice<ChunkFrame>) -> Int {
        let total = frames.reduce(0) { $0 + $1.stored.count }
        var sum = 0
        for index in frames.indices {
            sum += frames[index].stored.count
            if sum * 2 >= total { return index + 1 }
        }
        return frames.endIndex
    }

    /// Verifies and decodes `frames` in order with `budget` as if it were
    /// the real one, stopping at the first that fails or overspends it.
    private static func half(
        _ frames: ArraySlice<ChunkFrame>, verifyHeads: Bool, limits: DecodeLimits, budget: RowBudget
    ) -> Half {
        var half = Half(budget: budget)
        half.decoded.reserveCapacity(frames.count)
        half.maxRows.reserveCapacity(frames.count)
        for frame in frames {
            let rowLimits = half.budget.limits
            do throws(LoadError) {
                let decoded = try StorageFile.decode(try frame.verified(limits: limits), verifyHeads: verifyHeads, limits: rowLimits)
                try half.budget.spend(decoded.rows)
                half.decoded.append(decoded)
                half.maxRows.append(rowLimits.maxRows)
            } catch {
                half.failure = (error, rowLimits.maxRows)
                break
            }
        }
        return half
    }

    private static func spend(_ rows: Int, of frame: ChunkFrame, from budget: inout RowBudget) throws(LoadError) {
        do throws(LoadError) { try budget.spend(rows) } catch { throw .inChunk(frame.index, error) }
    }
}

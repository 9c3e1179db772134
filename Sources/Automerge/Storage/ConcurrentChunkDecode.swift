/// Decodes a run of change chunks on two cores, with the result, errors
/// included, of decoding them one after another.
///
/// A batch of received changes (`applyEncodedChanges` of thousands of
/// chunks, a file's trailing chunks) spends about a quarter of its time
/// decoding them, each independently of the others but for the input's
/// row budget (``RowBudget``), which each chunk may spend only as far as
/// the chunks before it left. The run is cut in two halves of about equal
/// bytes. The first half is decoded with the budget as it is, exactly as
/// in order; the second half, beside it, starts from the same budget
/// without knowing what the first spends, so each of its chunks gets at
/// least the limit it would get in order. Then the results are taken in
/// file order, spending the real budget: a second-half chunk that failed,
/// or declared more rows than were really left, is decoded again with its
/// real limit, so that the error is the one the ordered decode throws. A
/// decode that fails under a limit fails under any lower one, so no
/// success is lost. Each half decodes at most the budget, so the work
/// stays within twice the ordered decode's.
enum ConcurrentChunkDecode {
    /// From this many change chunks, the second core pays for handing it
    /// half of them.
    static let threshold = 64

    /// Whether `chunks` are enough change chunks, and nothing else, to decode concurrently.
    static func pays(for chunks: ArraySlice<Chunk>) -> Bool {
        chunks.count >= threshold && chunks.allSatisfy(\.isChange)
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

    /// Decodes `chunks`, spending `budget` in file order; throws what the
    /// ordered decode throws first, wrapped in ``LoadError/inChunk(_:_:)``.
    static func decode(
        _ chunks: ArraySlice<Chunk>, verifyHeads: Bool, budget: inout RowBudget
    ) throws(LoadError) -> [DecodedChunk] {
        let middle = byteMiddle(of: chunks)
        let (first, second) = Concurrently.run(
            { [budget] in half(chunks[..<middle], verifyHeads: verifyHeads, budget: budget) },
            { [budget] in half(chunks[middle...].map { $0.unshared() }[...], verifyHeads: verifyHeads, budget: budget) })
        // The first half had the real budget: its outcome is the ordered decode's.
        if let failure = first.failure { throw .inChunk(chunks[chunks.startIndex + first.decoded.count].index, failure.error) }
        var decoded = first.decoded
        decoded.reserveCapacity(chunks.count)
        budget = first.budget
        for (offset, chunk) in second.decoded.enumerated() {
            let index = middle + offset
            if second.maxRows[offset] == budget.limits.maxRows || chunk.rows <= budget.remaining {
                try spend(chunk.rows, of: chunks[index], from: &budget)
                decoded.append(chunk)
            } else {
                decoded.append(try StorageFile.decode(chunks[index], verifyHeads: verifyHeads, budget: &budget))
            }
        }
        if let failure = second.failure, failure.maxRows == budget.limits.maxRows {
            throw .inChunk(chunks[middle + second.decoded.count].index, failure.error)
        }
        // A second-half chunk that failed under a higher limit than it really
        // had is decoded again with its own, and so are any after it.
        for chunk in chunks[(chunks.startIndex + decoded.count)...] {
            decoded.append(try StorageFile.decode(chunk, verifyHeads: verifyHeads, budget: &budget))
        }
        return decoded
    }

    /// The index that splits `chunks` into halves of about equal stored bytes.
    private static func byteMiddle(of chunks: ArraySlice<Chunk>) -> Int {
        let total = chunks.reduce(0) { $0 + $1.stored.count }
        var sum = 0
        for index in chunks.indices {
            sum += chunks[index].stored.count
            if sum * 2 >= total { return index + 1 }
        }
        return chunks.endIndex
    }

    /// Decodes `chunks` in order with `budget` as if it were the real one,
    /// stopping at the first that fails or overspends it.
    private static func half(_ chunks: ArraySlice<Chunk>, verifyHeads: Bool, budget: RowBudget) -> Half {
        var half = Half(budget: budget)
        half.decoded.reserveCapacity(chunks.count)
        half.maxRows.reserveCapacity(chunks.count)
        for chunk in chunks {
            let limits = half.budget.limits
            do throws(LoadError) {
                let decoded = try StorageFile.decode(chunk, verifyHeads: verifyHeads, limits: limits)
                try half.budget.spend(decoded.rows)
                half.decoded.append(decoded)
                half.maxRows.append(limits.maxRows)
            } catch {
                half.failure = (error, limits.maxRows)
                break
            }
        }
        return half
    }

    private static func spend(_ rows: Int, of chunk: Chunk, from budget: inout RowBudget) throws(LoadError) {
        do throws(LoadError) { try budget.spend(rows) } catch { throw .inChunk(chunk.index, error) }
    }
}

/// Bounds on what decoding untrusted bytes may allocate.
///
/// The format compresses well by design: an RLE run of a few bytes may stand
/// for millions of rows, and DEFLATE expands up to ~1032 times. Valid files
/// can legitimately do this, so the bounds are generous multiples of the
/// input with absolute caps; a hostile file that exceeds them fails with
/// ``LoadError/tooManyRows(column:limit:)`` or
/// ``LoadError/inflatedTooLarge(what:limit:)`` instead of exhausting memory.
struct DecodeLimits: Sendable {
    /// The most bytes any one DEFLATE stream may inflate to.
    var maxInflatedBytes: Int = 1 << 28
    /// An inflated stream may also be at most this many times its input
    /// (plus a little slack); DEFLATE itself cannot exceed ~1032.
    var maxInflationRatio: Int = 1100
    /// Rows allowed per byte of a chunk's (inflated) column data...
    var rowsPerByte: Int = 512
    /// ...but never fewer than this...
    var minRows: Int = 1 << 20
    /// ...nor more than this: 2^25 (33.5 million) rows, 27 times moby-dick's.
    /// Rows per byte alone do not bound memory: padding (a long message, a
    /// long string value, an unknown column) raises a file's byte count
    /// without rows of its own, so a 1 KB compressed change of a padded
    /// message and RLE runs could claim 2^28 rows, each a 48-byte decoded
    /// row and later an op (tens of GB). At this cap a document's decoded
    /// rows take at most 1.6 GB (a change chunk's, turned into 168-byte
    /// ``StoredOp`` values, up to 5.6 GB more); larger chunks are refused
    /// with ``LoadError/tooManyRows(column:limit:)``.
    var maxRows: Int = 1 << 25

    static let `default` = DecodeLimits()

    /// The inflation limit for a stream of `compressedSize` bytes.
    func inflateLimit(compressedSize: Int) -> Int {
        let (scaled, overflow) = compressedSize.multipliedReportingOverflow(by: maxInflationRatio)
        return overflow ? maxInflatedBytes : min(maxInflatedBytes, scaled + 4096)
    }

    /// The most rows (ops and changes) a whole input of `inputSize` bytes
    /// may declare, over all its chunks: `rowsPerByte` per byte of the
    /// input as given (before inflation), and never fewer than `minRows`.
    func fileRowLimit(inputSize: Int) -> Int {
        let (scaled, overflow) = inputSize.multipliedReportingOverflow(by: rowsPerByte)
        return overflow ? Int.max : max(minRows, scaled)
    }

    /// The row limit for columns totalling `dataSize` bytes.
    func rowLimit(dataSize: Int) -> Int {
        let (scaled, overflow) = dataSize.multipliedReportingOverflow(by: rowsPerByte)
        return overflow ? maxRows : min(maxRows, max(minRows, scaled))
    }
}

/// The rows a whole input may still declare (``DecodeLimits/fileRowLimit(inputSize:)``),
/// spent chunk by chunk in file order: each chunk is decoded with at most
/// what the chunks before it left.
struct RowBudget: Sendable {
    private let base: DecodeLimits
    /// The rows the whole input may declare.
    let total: Int
    /// What the chunks decoded so far have left (negative once overspent).
    private(set) var remaining: Int

    init(limits: DecodeLimits, inputSize: Int) {
        base = limits
        total = limits.fileRowLimit(inputSize: inputSize)
        remaining = total
    }

    /// The limits for the next chunk: its rows capped by what is left.
    var limits: DecodeLimits {
        var limits = base
        limits.maxRows = min(base.maxRows, remaining)
        return limits
    }

    /// Spends a decoded chunk's rows; throws once the input has declared
    /// more than ``total``.
    mutating func spend(_ rows: Int) throws(LoadError) {
        remaining -= rows
        guard remaining >= 0 else { throw .tooManyRows(column: "input", limit: total) }
    }
}

/// Delta columns (type 3) and boolean columns (type 4).

/// A delta column: the differences between consecutive non-null values
/// (starting from 0), RLE-encoded as sLEB. Nulls pass through as null runs
/// and do not reset the running value (hexane's `DeltaEncoderState`).
///
/// Arithmetic wraps, as Rust's release builds do, so that every i64 sequence
/// round-trips; callers check the decoded values against their column's
/// domain (op counters must fit in 32 bits, for instance).
enum DeltaColumn {
    /// Decodes a column whose rows must all hold values: the values (0
    /// where a row is null) and the first null row, if any, which the
    /// caller reports in its own row order. Half the memory of optional
    /// values, for the long columns of a history's changes.
    static func decodeValues(
        _ data: ArraySlice<UInt8>, column: String, check: ColumnCheck, expectedCount: Int
    ) throws(LoadError) -> (values: [Int64], firstNull: Int?) {
        var reader = DeltaReader(data, column: column, check: check)
        var values = [Int64]()
        values.reserveCapacity(expectedCount)
        var firstNull: Int?
        while try !reader.isAtEnd() {
            if let value = try reader.next() {
                values.append(value)
            } else {
                if firstNull == nil { firstNull = values.count }
                values.append(0)
            }
        }
        return (values, firstNull)
    }

    static func encode<S: Sequence>(_ values: S) -> [UInt8] where S.Element == Int64? {
        var encoder = DeltaEncoder()
        for value in values { encoder.append(value) }
        return encoder.finish()
    }
}

/// Encodes absolute values as a delta column.
struct DeltaEncoder {
    private var rle = RLEEncoder<Int64>()
    private var absolute: Int64 = 0

    @inline(__always)
    mutating func append(_ value: Int64?) {
        guard let value else { rle.appendNull(); return }
        rle.appendValue(value &- absolute)
        absolute = value
    }

    mutating func finish() -> [UInt8] { rle.finish() }

    /// Empties the encoder, keeping its memory (see ``RLEEncoder/reset()``).
    mutating func reset() {
        rle.reset()
        absolute = 0
    }

    /// Continues this column with the values `other` encoded (from 0), as
    /// ``RLEEncoder/append(contentsOf:adjustFirstValue:)``: `other`'s first
    /// delta is rewritten against this column's last value.
    mutating func append(contentsOf other: DeltaEncoder) {
        let base = absolute
        var sawValue = false
        rle.append(contentsOf: other.rle) { first in
            sawValue = true
            return first &- base
        }
        if sawValue { absolute = other.absolute }
    }
}

/// A boolean column: uLEB run lengths alternating false/true, starting with
/// false (so a column starting with true begins with a 0 count).
enum BooleanColumn {
    /// Encodes booleans. With `omitIfAllFalse` (the expand column) a column
    /// without any true value is written as zero bytes, as Rust's
    /// `MaybeBooleanEncoder` does; otherwise n falses are `uLEB(n)`.
    static func encode<S: Sequence>(_ values: S, omitIfAllFalse: Bool = false) -> [UInt8] where S.Element == Bool {
        var encoder = BooleanEncoder()
        for value in values { encoder.append(value) }
        return encoder.finish(omitIfAllFalse: omitIfAllFalse)
    }
}

/// Encodes booleans one at a time as a boolean column.
struct BooleanEncoder {
    private var output: [UInt8] = []
    private var current = false
    private var count: UInt64 = 0
    private var sawTrue = false

    @inline(__always)
    mutating func append(_ value: Bool) {
        if value == current {
            count &+= 1
        } else {
            LEB128.appendUnsigned(count, to: &output)
            current = value
            count = 1
            sawTrue = true
        }
    }

    /// Appends `value` `count` times.
    mutating func append(_ value: Bool, count runLength: UInt64) {
        guard runLength > 0 else { return }
        if value == current {
            count &+= runLength
        } else {
            LEB128.appendUnsigned(count, to: &output)
            current = value
            count = runLength
            sawTrue = true
        }
    }

    /// Continues this column with the values `other` encoded, run by run
    /// (a boolean column is only run lengths, so this is cheap).
    mutating func append(contentsOf other: BooleanEncoder) {
        let bytes = other.output[...]
        var index = bytes.startIndex
        var value = false
        do {
            while index < bytes.endIndex {
                append(value, count: try LEB128.readUnsigned(bytes, at: &index, mode: .lenient, what: "own run"))
                value.toggle()
            }
        } catch {
            preconditionFailure("an encoder's own bytes did not read back: \(error)")
        }
        append(other.current, count: other.count)
    }

    /// Empties the encoder, keeping its memory (see ``RLEEncoder/reset()``).
    mutating func reset() {
        if !output.isEmpty { output.removeAll(keepingCapacity: true) }
        current = false
        count = 0
        sawTrue = false
    }

    /// The column bytes. With `omitIfAllFalse` a column without any true
    /// value is empty (Rust's `MaybeBooleanEncoder`).
    mutating func finish(omitIfAllFalse: Bool = false) -> [UInt8] {
        if omitIfAllFalse && !sawTrue { return [] }
        if count > 0 { LEB128.appendUnsigned(count, to: &output) }
        count = 0
        return output
    }
}

@_spi(Conformance) @testable import Automerge

/// Whole columns read row by row through the readers the library's
/// decoders use (`DeltaReader`, `BooleanReader`, `ValueReader`): the
/// library never collects a column on its own, so the tests that check a
/// column's codec collect it here rather than through a decoder only they
/// would call.
enum WholeColumn {
    static func deltas(_ data: ArraySlice<UInt8>, column: String, check: ColumnCheck) throws(LoadError) -> [Int64?] {
        var reader = DeltaReader(data, column: column, check: check)
        var values = [Int64?]()
        while try !reader.isAtEnd() { values.append(try reader.next()) }
        return values
    }

    /// In canonical mode only the first count may be 0 and the last count
    /// may not (hexane's `bool_validate_encoding`).
    static func booleans(_ data: ArraySlice<UInt8>, column: String, check: ColumnCheck) throws(LoadError) -> [Bool] {
        var reader = BooleanReader(data, column: column, check: check)
        var values = [Bool]()
        while try !reader.isAtEnd() { values.append(try reader.next()) }
        return values
    }

    /// `rows` values. A missing metadata column means all nulls; a missing
    /// raw column is empty.
    static func values(
        meta: ArraySlice<UInt8>?, raw: ArraySlice<UInt8>?, rows: Int, column: String, check: ColumnCheck
    ) throws(LoadError) -> [Primitive] {
        var reader = try ValueReader(meta: meta, raw: raw, column: column, check: check)
        var values = [Primitive]()
        for row in 0..<rows { values.append(try reader.next(row: row, rows: rows)) }
        try reader.finish(rows: rows)
        return values
    }
}

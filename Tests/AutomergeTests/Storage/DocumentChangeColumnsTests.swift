import Testing
@testable import Automerge

/// The change rows of a document chunk: what a decode gives back, and
/// which error a damaged column gets, in row order as Rust reports them.
@Suite("Document change columns")
struct DocumentChangeColumnsTests {
    static let rows = [
        StoredChangeMetadata(actor: 0, sequence: 1, maxOp: 2, time: 10, message: "first", dependencies: [], extraBytes: []),
        StoredChangeMetadata(actor: 1, sequence: 1, maxOp: 3, time: 20, message: nil, dependencies: [0], extraBytes: [7]),
        StoredChangeMetadata(actor: 0, sequence: 2, maxOp: 5, time: 30, message: nil, dependencies: [0, 1], extraBytes: []),
    ]

    /// The columns of `rows`, with delta columns replaced by the values given.
    static func columns(replacing replacements: [ColumnSpec: [Int64?]] = [:]) -> ColumnSet {
        let encoded = DocumentChangeColumns.encode(rows).map { column in
            (spec: column.0, bytes: replacements[column.0].map { DeltaColumn.encode($0)[...] } ?? column.1[...])
        }
        return ColumnSet(layout: encoded)
    }

    static func decode(_ columns: ColumnSet) throws(LoadError) -> [StoredChangeMetadata] {
        try DocumentChangeColumns.decode(columns, actorCount: 2, rowLimit: 1 << 20)
    }

    @Test("rows decode as encoded, each with its own dependencies")
    func roundTrip() throws {
        let decoded = try Self.decode(Self.columns())
        #expect(decoded == Self.rows)
        #expect(decoded.map { Array($0.dependencies) } == [[], [0], [0, 1]])
    }

    /// (A null time is refused earlier: that column is read canonically,
    /// and non-nullable.)
    @Test("a null where a row needs a value fails at that row", arguments: [
        (ColumnSpec.changeSeq, [1, nil, 2] as [Int64?], "change seq", 1),
        (ColumnSpec.changeMaxOp, [2, 3, nil], "change max op", 2),
        (ColumnSpec.changeDeps, [0, 0, nil], "change deps", 2),
    ])
    func nullValue(spec: ColumnSpec, values: [Int64?], column: String, row: Int) {
        #expect(throws: LoadError.unexpectedNull(column: column, row: row)) {
            try Self.decode(Self.columns(replacing: [spec: values]))
        }
    }

    @Test("of two damaged rows, the first is reported")
    func firstRowFirst() {
        // Row 1's sequence number is null and row 2's max op too: row 1 first,
        // though the max-op column has its null in a later row.
        let columns = Self.columns(replacing: [.changeSeq: [1, nil, 2], .changeMaxOp: [2, 3, nil]])
        #expect(throws: LoadError.unexpectedNull(column: "change seq", row: 1)) { try Self.decode(columns) }
    }
}

import Testing
@_spi(Conformance) @testable import Automerge

/// Decoded op rows are held compactly (``StoredOpRows``): a load reads them
/// twice and copies their values into the rebuilt changes as raw bytes, so
/// the rows must give back exactly what was decoded.
@Suite("Compact op rows")
struct StoredOpRowsTests {
    typealias S = StorageSamples

    /// Ops with every kind of value, map keys that Swift's `==` holds equal
    /// but whose bytes differ, mark names, and groups of 0, 1 and 2 ids.
    static let ops: [StoredOp] = [
        S.op(key: .map("é"), action: 1, value: .string("é"), id: S.id(1, 0)),
        S.op(key: .map("e\u{301}"), action: 1, value: .string("e\u{301}"), id: S.id(2, 0), successors: [S.id(9, 1)]),
        S.op(key: .map("e\u{301}"), action: 1, value: .int(-70_000), id: S.id(3, 0)),
        S.op(key: .map("n"), action: 1, value: .uint(1 << 40), id: S.id(4, 0), successors: [S.id(8, 0), S.id(9, 0)]),
        S.op(key: .map("f"), action: 1, value: .f64(-0.0), id: S.id(5, 0)),
        S.op(key: .map("b"), action: 1, value: .bytes([0, 255]), id: S.id(6, 0)),
        S.op(key: .map("c"), action: 1, value: .counter(-3), id: S.id(7, 0)),
        S.op(key: .map("t"), action: 1, value: .timestamp(1_700_000_000_000), id: S.id(8, 1)),
        S.op(key: .map("u"), action: 1, value: .unknown(typeCode: 12, bytes: [1, 2, 3]), id: S.id(9, 1)),
        S.op(key: .map("x"), action: 1, value: .bool(true), id: S.id(10, 1)),
        S.op(object: S.id(1, 0), key: .element(nil), insert: true, action: 1, value: .null, id: S.id(11, 0)),
        S.op(object: S.id(1, 0), key: .element(S.id(0, 1)), insert: true, action: 7, value: .string("v"),
             id: S.id(12, 1), expand: true, markName: "bold"),
        S.op(object: S.id(0, 1), key: .element(S.id(12, 1)), insert: true, action: 7, id: S.id(13, 1)),
    ]

    static func decodeColumns(_ ops: [StoredOp], kind: OpColumns.Kind = .document) throws(LoadError) -> StoredOpRows {
        let columns = ColumnSet.nonEmpty(OpColumns.encode(ops, kind: kind)).map { (spec: $0.spec, bytes: $0.bytes[...]) }
        return try OpColumns.decode(ColumnSet(layout: columns), kind: kind, actorCount: 2, canonical: true, rowLimit: 1 << 20)
    }

    @Test("a row holds nothing to retain or destroy, in 48 bytes")
    func rowIsPlainData() {
        #expect(_isPOD(StoredOpRows.Row.self))
        #expect(MemoryLayout<StoredOpRows.Row>.stride == 48)
    }

    @Test("ops read back as they were appended, and as they were decoded")
    func opsReadBack() throws {
        let appended = StoredOpRows(kind: .document, Self.ops)
        #expect(Array(appended) == Self.ops)
        let decoded = try Self.decodeColumns(Self.ops)
        #expect(Array(decoded) == Self.ops)
        for (op, original) in zip(decoded, Self.ops) {
            // `==` of StoredKey compares strings as Swift does; the bytes must be the same too.
            if case .map(let key) = op.key, case .map(let expected) = original.key {
                #expect(Array(key.utf8) == Array(expected.utf8))
            }
        }
    }

    @Test("decoded values copied as raw bytes re-encode the columns they came from")
    func rawValuesReencode() throws {
        let rows = try Self.decodeColumns(Self.ops)
        var writer = OpColumnWriter(kind: .document)
        rows.valueBytes.withUnsafeBufferPointer { bytes in
            for row in rows.rows {
                writer.append(
                    object: row.object, key: rows.key(of: row), insert: row.insert, action: UInt64(row.action),
                    rawValue: (row.valueType, UnsafeBufferPointer(rebasing: bytes[row.valueRange])), id: row.id,
                    groupCount: row.groupRange.count, expand: row.expand, markName: rows.markName(of: row))
                for member in rows.groupIds[row.groupRange] { writer.appendGroupMember(member) }
            }
        }
        let expected = OpColumns.encode(Self.ops, kind: .document)
        #expect(writer.finish().map { $0.1 } == expected.map { $0.1 })
    }

    @Test("a null or boolean's stray value bytes are dropped, as the value decodes without them")
    func strayValueBytes() throws {
        // One row: a null whose metadata claims two raw bytes (length 2 << 4 | type 0).
        var meta = RLEEncoder<UInt64>()
        meta.appendValue(2 << 4)
        let columns: [(spec: ColumnSpec, bytes: ArraySlice<UInt8>)] = [
            (.keyString, RLEColumn.encode(["k"] as [String?])[...]), (.action, RLEColumn.encode([1] as [UInt64?])[...]),
            (.valueMeta, meta.finish()[...]), (.value, [7, 7]),
        ]
        let rows = try OpColumns.decode(ColumnSet(layout: columns), kind: .change, actorCount: 1, canonical: false,
                                        rowLimit: 16)
        #expect(rows[0].value == .null)
        #expect(rows.rows[0].valueRange.isEmpty)
    }

    @Test("a row rewritten through the subscript reads back, the others unchanged")
    func rewriteRow() {
        var rows = StoredOpRows(kind: .document, Self.ops)
        var op = rows[3]
        op.value = .string(String(repeating: "z", count: 40))
        op.successors = [S.id(1 << 32, 1)]
        op.markName = "m"
        rows[3] = op
        var expected = Self.ops
        expected[3] = op
        #expect(Array(rows) == expected)
        #expect(rows.count == Self.ops.count)
    }

    @Test("a change chunk's rows carry predecessors, a document's successors")
    func groupsFollowTheKind() throws {
        let change = [S.op(key: .map("k"), action: 1, predecessors: [S.id(1, 0), S.id(1, 1)])]
        #expect(Array(try Self.decodeColumns(change, kind: .change)) == change)
        let document = [S.op(key: .map("k"), action: 1, id: S.id(2, 0), successors: [S.id(3, 1)])]
        #expect(Array(try Self.decodeColumns(document)) == document)
    }
}

import Testing
@_spi(Conformance) @testable import Automerge

@Suite("Change chunks")
struct ChangeChunkTests {
    typealias S = StorageSamples

    @Test("a change round-trips through its chunk, and its hash is SHA-256 of the chunk")
    func roundTrip() throws {
        let encoded = ChangeChunk.encode(S.change)
        let chunk = try ChunkFraming.split(encoded.bytes)[0]
        #expect(chunk.type == .change)
        #expect(chunk.changeHash == encoded.hash)
        #expect(try ChangeChunk.decode(chunk) == S.change)
    }

    @Test("a change with no ops has column metadata 00")
    func emptyChange() throws {
        var change = S.change
        change.ops = []
        change.extraBytes = []
        let bytes = ChangeChunk.encode(change).bytes
        #expect(bytes.last == 0x00)
        #expect(try S.decodeChange(bytes) == change)
    }

    @Test("columns are present exactly when they hold data")
    func columnPresence() throws {
        // Ops at the root with map keys and no preds: no obj, key actor/counter, value raw,
        // pred actor/counter, expand or mark name columns.
        var change = S.change
        change.ops = [S.op(key: .map("a"), action: 1, value: .null), S.op(key: .map("b"), action: 1, value: .bool(true))]
        let specs = try layoutSpecs(ChangeChunk.encode(change).bytes)
        #expect(specs == [21, 52, 66, 86, 112])
        // The sample uses everything.
        #expect(try layoutSpecs(S.changeBytes) == [1, 2, 17, 19, 21, 52, 66, 86, 87, 112, 113, 115, 148, 165])
    }

    /// The column specs of a change chunk.
    func layoutSpecs(_ bytes: [UInt8]) throws -> [UInt32] {
        var reader = ByteReader(try ChunkFraming.split(bytes)[0].contents)
        _ = try reader.readHashes("deps")
        _ = try reader.readActor("actor")
        _ = try reader.readUnsigned("seq")
        _ = try reader.readUnsigned("start")
        _ = try reader.readSigned("time")
        _ = try reader.readString("message")
        _ = try reader.readActors("others")
        return try ColumnLayout.read(&reader, section: "change op").columns.map(\.spec.raw)
    }

    @Test("a hand-written one-op change decodes")
    func handWritten() throws {
        let change = try S.decodeChange(S.rawChange(columns: S.oneOpColumns()))
        #expect(change.ops == [S.op(key: .map("k"), action: 1, value: .null)])
        #expect(change.startOp == 1)
        #expect(change.message == nil)
    }

    @Test("startOp must be in 1...UInt32.max")
    func startOpRange() {
        #expect(throws: LoadError.startOpOutOfRange(0)) { try S.decodeChange(S.rawChange(startOp: 0, columns: [])) }
        #expect(throws: LoadError.startOpOutOfRange(1 << 32)) {
            try S.decodeChange(S.rawChange(startOp: 1 << 32, columns: []))
        }
        // The last op's id must fit too.
        var columns = S.oneOpColumns()
        columns = columns.map { $0.spec == 66 ? (66, [0x02, 0x01]) : $0.spec == 21 ? (21, [0x02, 0x01, 0x6b])
            : $0.spec == 52 ? (52, [0x02]) : $0.spec == 86 ? (86, [0x02, 0x00]) : (112, [0x02, 0x00]) }
        #expect(throws: LoadError.opCounterOverflow(column: "op id", row: 1)) {
            try S.decodeChange(S.rawChange(startOp: UInt64(UInt32.max), columns: columns))
        }
    }

    @Test("actions above 7 and non-numeric increments are rejected")
    func actions() throws {
        #expect(throws: LoadError.unknownAction(row: 0, action: 8)) {
            try S.decodeChange(S.rawChange(columns: S.oneOpColumns(action: 8)))
        }
        #expect(throws: LoadError.nonNumericIncrement(row: 0)) {
            try S.decodeChange(S.rawChange(columns: S.oneOpColumns(action: 5, meta: 1 << 4 | 6, raw: [0x61])))
        }
        #expect(throws: LoadError.nonNumericIncrement(row: 0)) {  // a counter is not an increment amount
            try S.decodeChange(S.rawChange(columns: S.oneOpColumns(action: 5, meta: 1 << 4 | 8, raw: [0x01])))
        }
        let inc = try S.decodeChange(S.rawChange(columns: S.oneOpColumns(action: 5, meta: 1 << 4 | 3, raw: [0x01])))
        #expect(inc.ops[0].value == .uint(1))
    }

    @Test("actor indices must name the author or another actor of the change")
    func actorIndices() {
        // An object id (actor 1, counter 1) in a change with no other actors.
        let columns = S.oneOpColumns(extra: [(1, [0x7f, 0x01]), (2, [0x7f, 0x01])])
        #expect(throws: LoadError.actorIndexOutOfRange(column: "obj actor", row: 0, index: 1)) {
            try S.decodeChange(S.rawChange(columns: columns))
        }
        let ok = try? S.decodeChange(S.rawChange(others: [S.actorB], columns: columns))
        #expect(ok?.ops[0].object == S.id(1, 1))
    }

    @Test("an object id needs both its actor and its counter")
    func halfObjectId() {
        let columns = S.oneOpColumns(extra: [(1, [0x7f, 0x00])])
        #expect(throws: LoadError.invalidObjectId(row: 0)) { try S.decodeChange(S.rawChange(columns: columns)) }
    }

    @Test("predecessors must be in ascending op id order")
    func predecessorOrder() {
        var change = S.change
        change.ops[0].predecessors.reverse()
        #expect(throws: LoadError.invalidValue(column: "pred", row: 0,
                                               reason: "predecessors not in ascending op id order")) {
            try S.decodeChange(ChangeChunk.encode(change).bytes)
        }
    }

    @Test("invalid UTF-8 in the message or a key is rejected")
    func invalidUTF8() {
        #expect(throws: LoadError.invalidUTF8(what: "change message")) {
            try S.decodeChange(S.rawChange(message: [0xc3, 0x28], columns: []))
        }
        let columns = S.oneOpColumns().map { $0.spec == 21 ? (21, [0x7f, 0x01, 0xff]) : $0 }
        #expect(throws: LoadError.invalidUTF8(what: "key string")) { try S.decodeChange(S.rawChange(columns: columns)) }
    }

    @Test("compressed columns are illegal in change chunks")
    func compressedColumns() {
        let columns = S.oneOpColumns().map { $0.spec == 21 ? (29, $0.bytes) : $0 }
        #expect(throws: LoadError.compressedColumnInChange) { try S.decodeChange(S.rawChange(columns: columns)) }
    }

    @Test("column metadata must be sorted, without duplicates, with value columns after their metadata")
    func layoutRules() {
        let unsorted = [(spec: UInt32(52), bytes: [UInt8]([0x01])), (21, [0x7f, 0x01, 0x6b])]
        #expect(throws: LoadError.columnsOutOfOrder(section: "change op")) {
            try S.decodeChange(S.rawChange(columns: unsorted))
        }
        let duplicate = [(spec: UInt32(21), bytes: [UInt8]([0x7f, 0x01, 0x6b])), (21, [0x7f, 0x01, 0x6b])]
        #expect(throws: LoadError.duplicateColumn(section: "change op", spec: 21)) {
            try S.decodeChange(S.rawChange(columns: duplicate))
        }
        let lone = [(spec: UInt32(87), bytes: [UInt8]([0x01]))]
        #expect(throws: LoadError.loneValueColumn(section: "change op", spec: 87)) {
            try S.decodeChange(S.rawChange(columns: lone))
        }
    }

    @Test("unknown columns are skipped (and so dropped on re-encoding)")
    func unknownColumns() throws {
        let columns = S.oneOpColumns(extra: [(97, [0xd0, 0x0f]), (1029, [1, 2, 3])])
        let change = try S.decodeChange(S.rawChange(columns: columns))
        #expect(change.ops.count == 1)
    }

    @Test("columns of different lengths are rejected")
    func lengthMismatch() {
        let columns = S.oneOpColumns().map { $0.spec == 52 ? (52, [0x02]) : $0 }
        #expect(throws: LoadError.columnLengthMismatch(column: "insert", expected: 1, actual: 2)) {
            try S.decodeChange(S.rawChange(columns: columns))
        }
    }

    @Test("extra bytes after the columns are kept and hashed")
    func extraBytes() throws {
        let decoded = try S.decodeChange(S.changeBytes)
        #expect(decoded.extraBytes == [0xde, 0xad])
        var other = S.change
        other.extraBytes = []
        #expect(ChangeChunk.encode(other).hash != ChangeChunk.encode(S.change).hash)
    }
}

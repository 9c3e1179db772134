import Foundation
import Testing
@_spi(Conformance) @testable import Automerge

/// A loaded document keeps each small map whose ops all pack as bytes
/// (``PackedMap``). Reads must see exactly the maps the document had,
/// writes must unpack them and act as on the document before the save, a
/// copy made before the write must keep what it had, and a save must
/// write the same bytes.
@Suite("Packed maps")
struct PackedMapTests {
    /// Records of a few keys (values of every scalar type, a nested list,
    /// keys overwritten and deleted, a conflict), one record of more keys
    /// than a packed map holds, one with a counter incremented (an op
    /// whose successor is an increment does not pack) and one whose put two
    /// concurrent puts overwrote (an op of two successors does not pack).
    static func records() throws -> (original: Document, other: Document, records: [ObjId]) {
        let original = Document()
        var records: [ObjId] = []
        for index in 0..<20 {
            let record = try original.putObject(obj: .ROOT, key: "record\(index)", ty: .Map)
            try original.put(obj: record, key: "name", value: .String("name \(index) 😀"))
            try original.put(obj: record, key: "size", value: .Int(Int64(index) - 10))
            try original.put(obj: record, key: "ratio", value: .F64(Double(index) / 3))
            try original.put(obj: record, key: "flag", value: .Boolean(index % 2 == 0))
            try original.put(obj: record, key: "blob", value: .Bytes(Data([UInt8(index), 0, 255])))
            try original.put(obj: record, key: "when", value: .Timestamp(Date(timeIntervalSince1970: Double(index))))
            try original.put(obj: record, key: "", value: .Null)
            let tags = try original.putObject(obj: record, key: "tags", ty: .List)
            try original.insert(obj: tags, index: 0, value: .String("t"))
            records.append(record)
        }
        try original.put(obj: records[1], key: "name", value: .String("renamed"))
        try original.delete(obj: records[2], key: "size")
        for extra in 0..<12 { try original.put(obj: records[3], key: "extra\(extra)", value: .Uint(UInt64(extra))) }
        try original.put(obj: records[4], key: "count", value: .Counter(1))
        try original.increment(obj: records[4], key: "count", by: 5)
        let other = original.fork()
        try original.put(obj: records[5], key: "name", value: .String("ours"))
        try other.put(obj: records[5], key: "name", value: .String("theirs"))
        try original.merge(other: other)
        return (original, other, records)
    }

    static func packedMaps(_ document: Document) -> Int {
        document.locked { state in state.ops.maps.reduce(0) { $0 + ($1.isPacked ? 1 : 0) } }
    }

    static func isPacked(_ document: Document, _ map: ObjId) -> Bool {
        document.locked { state in
            let object = state.ops.objects[state.ops.resolve(map)!.index]
            return state.ops.entries(of: object).isPacked
        }
    }

    /// Every key of every record reads the same in both documents.
    static func expectSameRecords(_ loaded: Document, _ original: Document, _ records: [ObjId],
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        for record in records {
            #expect(loaded.keys(obj: record) == original.keys(obj: record), sourceLocation: sourceLocation)
            #expect(loaded.length(obj: record) == original.length(obj: record), sourceLocation: sourceLocation)
            for key in original.keys(obj: record) {
                #expect(try loaded.getAll(obj: record, key: key) == original.getAll(obj: record, key: key),
                        "key \(key)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("a loaded document packs its small maps of plain ops and reads them as before")
    func loadedMapsReadAsBefore() throws {
        let (original, _, records) = try Self.records()
        let loaded = try Document(original.save())
        #expect(Self.packedMaps(loaded) >= 17, "records of plain ops are packed")
        #expect(Self.isPacked(loaded, records[0]) && Self.isPacked(loaded, records[1]) && Self.isPacked(loaded, records[2]))
        #expect(!Self.isPacked(loaded, records[3]), "more keys than a packed map holds")
        #expect(!Self.isPacked(loaded, records[4]), "a put incremented by a counter op")
        #expect(!Self.isPacked(loaded, records[5]), "a put two concurrent puts overwrote (two successors)")
        try Self.expectSameRecords(loaded, original, records)
        let heads = original.heads()
        #expect(try loaded.mapEntriesAt(obj: records[5], heads: heads).map(\.0) == original.mapEntriesAt(obj: records[5], heads: heads).map(\.0))
        let tags = try #require(try Self.tags(of: records[0], in: loaded))
        #expect(try loaded.path(obj: tags).map(\.prop) == [.Key("record0"), .Key("tags")])
        #expect(try loaded.get(obj: records[0], key: "missing") == nil)
        #expect(loaded.save(compress: false) == original.save(compress: false))
        try loaded.checkInvariants()
    }

    static func tags(of record: ObjId, in document: Document) throws -> ObjId? {
        if case .Object(let id, _)? = try document.get(obj: record, key: "tags") { return id }
        return nil
    }

    @Test("writes to packed maps act as on the document before the save; a fork taken before keeps its maps")
    func writesToPackedMaps() throws {
        let (original, other, records) = try Self.records()
        let loaded = try Document(original.save())
        loaded.actor = original.actor
        let untouched = loaded.fork()
        for document in [original, loaded] {
            try document.put(obj: records[0], key: "name", value: .String("written"))
            try document.put(obj: records[1], key: "new key", value: .Int(7))
            try document.delete(obj: records[6], key: "flag")
            _ = try document.putObject(obj: records[7], key: "size", ty: .Text)
            try other.put(obj: records[8], key: "name", value: .String("concurrent"))
            try document.merge(other: other)
        }
        #expect(!Self.isPacked(loaded, records[0]))
        #expect(Self.isPacked(loaded, records[9]), "maps nothing wrote stay packed")
        try Self.expectSameRecords(loaded, original, records)
        #expect(loaded.heads() == original.heads())
        #expect(loaded.save(compress: false) == original.save(compress: false))
        try loaded.checkInvariants()
        #expect(Self.isPacked(untouched, records[0]))
        #expect(try untouched.get(obj: records[0], key: "name") == .Scalar(.String("name 0 😀")))
        try untouched.checkInvariants()
    }

    @Test("a map whose packed bytes pass a block (a key of 100 KB) packs and reads back")
    func mapLargerThanABlock() throws {
        let original = Document()
        let record = try original.putObject(obj: .ROOT, key: "record", ty: .Map)
        let longKey = String(repeating: "k", count: 100_000)
        try original.put(obj: record, key: longKey, value: .String(String(repeating: "v", count: 50_000)))
        try original.put(obj: record, key: "short", value: .Int(1))
        let second = try original.putObject(obj: .ROOT, key: "second", ty: .Map)
        try original.put(obj: second, key: "a", value: .Int(2))
        let loaded = try Document(original.save())
        #expect(Self.isPacked(loaded, record) && Self.isPacked(loaded, second))
        try Self.expectSameRecords(loaded, original, [record, second])
        #expect(loaded.save(compress: false) == original.save(compress: false))
        try loaded.checkInvariants()
    }
}

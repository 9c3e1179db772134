import Foundation
import Testing
@_spi(Conformance) @testable import Automerge

@Suite("Document chunks")
struct DocumentChunkTests {
    typealias S = StorageSamples

    @Test("a document round-trips, compressed or not")
    func roundTrip() throws {
        let document = S.document
        #expect(try S.decodeDocument(DocumentChunk.encode(document, compress: false)) == document)
        #expect(try S.decodeDocument(DocumentChunk.encode(document, compress: true)) == document)
    }

    @Test("columns of 256 bytes or more are deflated and flagged; smaller ones are not")
    func compressionThreshold() throws {
        var document = S.document
        // A long string value makes the raw value column long.
        document.ops[2].value = .string(String(repeating: "z", count: 300))
        let bytes = DocumentChunk.encode(document, compress: true)
        var reader = ByteReader(try ChunkFraming.split(bytes)[0].contents)
        _ = try reader.readActors("actors")
        _ = try reader.readHashes("heads")
        _ = try ColumnLayout.read(&reader, section: "changes")
        let ops = try ColumnLayout.read(&reader, section: "ops")
        let raw = try #require(ops.columns.first { $0.spec.normalized == .value })
        #expect(raw.spec.deflate)
        #expect(raw.length < 300)
        #expect(ops.columns.filter(\.spec.deflate).count == 1)
        #expect(try S.decodeDocument(bytes) == document)
    }

    @Test("the heads index is optional on load (old JS documents omit it)")
    func headsIndexOptional() throws {
        var document = S.document
        document.headsIndex = []
        #expect(try S.decodeDocument(DocumentChunk.encode(document, compress: false)) == document)
    }

    @Test("bytes after the heads index are rejected")
    func trailingBytes() throws {
        var document = S.document
        document.headsIndex = [1, 1]  // one more entry than heads
        #expect(throws: LoadError.trailingBytes(what: "document heads index")) {
            try S.decodeDocument(DocumentChunk.encode(document, compress: false))
        }
    }

    @Test("each actor's changes must be numbered 1, 2, 3... in row order")
    func sequenceGap() {
        var document = S.document
        document.changes[1].sequence = 2
        #expect(throws: LoadError.changesOutOfOrder(row: 1)) {
            try S.decodeDocument(DocumentChunk.encode(document, compress: false))
        }
    }

    @Test("an actor's maxOp may not decrease, nor be below a dependency's")
    func maxOpMonotone() {
        var document = S.document
        document.changes[1].maxOp = 1  // below its dependency's maxOp 2
        #expect(throws: LoadError.incorrectMaxOp(row: 1)) {
            try S.decodeDocument(DocumentChunk.encode(document, compress: false))
        }
    }

    @Test("dependencies must name earlier change rows")
    func forwardDependency() {
        var document = S.document
        document.changes[0].dependencies = [1]
        #expect(throws: LoadError.dependencyOutOfRange(row: 0, index: 1)) {
            try S.decodeDocument(DocumentChunk.encode(document, compress: false))
        }
    }

    @Test("actor indices must be inside the actor table")
    func actorRange() {
        var document = S.document
        document.ops[0].id = S.id(1, 2)
        #expect(throws: LoadError.actorIndexOutOfRange(column: "id actor", row: 0, index: 2)) {
            try S.decodeDocument(DocumentChunk.encode(document, compress: false))
        }
        var change = S.document
        change.changes[0].actor = 5
        #expect(throws: LoadError.actorIndexOutOfRange(column: "change actor", row: 0, index: 5)) {
            try S.decodeDocument(DocumentChunk.encode(change, compress: false))
        }
    }

    @Test("op counters must fit in 32 bits")
    func counterRange() {
        var document = S.document
        document.ops[1].successors = [S.id(1 << 32, 1)]
        #expect(throws: LoadError.opCounterOverflow(column: "succ counter", row: 1)) {
            try S.decodeDocument(DocumentChunk.encode(document, compress: false))
        }
    }

    @Test("document op columns must be canonical")
    func canonicalOpColumns() throws {
        var parts = try DocumentParts(S.documentBytes)
        let action = try #require(parts.opColumns.firstIndex { $0.spec == .action })
        // Actions 2, 1, 1, 1 as Rust writes them...
        #expect(parts.opColumns[action].bytes == bytesFromHex("7f 02 03 01"))
        // ...and with a count-1 repeat run, which Rust rejects in documents.
        parts.opColumns[action].bytes = bytesFromHex("7f 02 01 01 02 01")
        #expect(throws: LoadError.nonCanonicalColumn(column: "action", reason: "repeat run with count < 2")) {
            try S.decodeDocument(parts.bytes)
        }
    }

    @Test("unknown columns are skipped; required ones may not be missing")
    func unknownAndMissingColumns() throws {
        var parts = try DocumentParts(S.documentBytes)
        parts.opColumns.append((ColumnSpec(raw: 1029), [1, 2, 3]))
        #expect(try S.decodeDocument(parts.bytes) == S.document)
        parts.opColumns.removeAll { $0.spec == .idCounter }
        #expect(throws: LoadError.missingColumn(column: "id counter")) { try S.decodeDocument(parts.bytes) }
    }

    @Test("column lengths that overflow or pass the end are rejected")
    func columnLengthPastEnd() {
        // Actors 0, heads 0, one change column (actor, spec 1) claiming 2^60 bytes.
        let contents = bytesFromHex("00 00 01 01 80 80 80 80 80 80 80 80 10 00")
        let chunk = ChunkFraming.frame(type: .document, contents: contents).bytes
        #expect(throws: LoadError.lengthPastEnd(what: "document change column data", length: 1 << 60, remaining: 1)) {
            try S.decodeDocument(chunk)
        }
    }

    /// A document with more ops than ``DocumentState/concurrentSaveThreshold``,
    /// of every shape a save writes: text typed, deleted and marked, a list
    /// whose elements are overwritten, map keys with conflicts and counters.
    static func largeDocument() throws -> Document {
        let doc = Document()
        let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        for round in 0..<120 {
            try doc.spliceText(obj: text, start: UInt64(round * 90), delete: 0,
                               value: String(repeating: "swift automerge é 🙂 ", count: 6))
            try doc.spliceText(obj: text, start: UInt64(round * 90 + 5), delete: 30, value: "")
        }
        try doc.mark(obj: text, start: 10, end: 400, expand: .both, name: "bold", value: .Boolean(true))
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        for index in 0..<2_000 { try doc.insert(obj: list, index: UInt64(index), value: .Int(Int64(index))) }
        for index in stride(from: 0, to: 2_000, by: 3) { try doc.put(obj: list, index: UInt64(index), value: .String("x\(index)")) }
        let other = doc.fork()
        for key in 0..<1_500 {
            try doc.put(obj: .ROOT, key: "k\(key)", value: .Uint(UInt64(key)))
            try other.put(obj: .ROOT, key: "k\(key)", value: .F64(Double(key) / 3))
        }
        try doc.put(obj: .ROOT, key: "count", value: .Counter(1))
        try doc.increment(obj: .ROOT, key: "count", by: 41)
        try doc.merge(other: other)
        return doc
    }

    /// Large documents whose middle row, where a save cuts its rows in two
    /// halves, falls in a map (between keys of conflicting ops) and in a
    /// list (between elements with later puts and deletes).
    static func mapCutDocument() throws -> Document {
        let doc = Document()
        let other = doc.fork()
        for key in 0..<24_000 { try doc.put(obj: .ROOT, key: "key \(key)", value: .Int(Int64(key))) }
        for key in stride(from: 0, to: 24_000, by: 97) { try other.put(obj: .ROOT, key: "key \(key)", value: .String("other")) }
        try doc.merge(other: other)
        let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "after the map")
        return doc
    }

    static func listCutDocument() throws -> Document {
        let doc = Document()
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        for index in 0..<22_000 { try doc.insert(obj: list, index: UInt64(index), value: .Uint(UInt64(index % 5))) }
        for index in stride(from: 0, to: 22_000, by: 7) { try doc.put(obj: list, index: UInt64(index), value: .Boolean(true)) }
        for index in stride(from: 21_000, to: 0, by: -13) { try doc.delete(obj: list, index: UInt64(index)) }
        return doc
    }

    @Test("a save written on two cores has the bytes of one writer, compressed or not, wherever its rows are cut",
          arguments: ["text", "map", "list"])
    func concurrentSave(cutIn object: String) throws {
        let doc = try ["text": Self.largeDocument, "map": Self.mapCutDocument, "list": Self.listCutDocument][object]!()
        let plain = [UInt8](doc.save(compress: false))
        let stored = try S.decodeDocument(plain)
        #expect(UInt64(stored.ops.count) > DocumentState.concurrentSaveThreshold, "the save takes the two-core path")
        // DocumentChunk.encode writes the rows through a single writer.
        #expect(DocumentChunk.encode(stored, compress: false) == plain)
        let compressed = [UInt8](doc.save())
        #expect(compressed == DocumentChunk.encode(stored, compress: true))
        #expect(try S.decodeDocument(compressed) == stored)
    }

    @Test("a large document loads on two cores (op set beside the change rebuild) to the document that saved it")
    func concurrentLoad() throws {
        let doc = try Self.largeDocument()
        let bytes = [UInt8](doc.save())
        let stored = try S.decodeDocument(bytes)
        #expect(stored.ops.count >= StorageFile.concurrentBuildThreshold, "the load takes the two-core path")
        let loaded = try Document(Data(bytes))
        #expect(loaded.heads() == doc.heads())
        guard case .Object(let text, .Text)? = try doc.get(obj: .ROOT, key: "text") else {
            Issue.record("no text")
            return
        }
        #expect(try loaded.text(obj: text) == doc.text(obj: text))
        #expect(try loaded.marks(obj: text) == doc.marks(obj: text))
        #expect(loaded.getHistory() == doc.getHistory())
        #expect([UInt8](loaded.save()) == bytes)
    }

    @Test("on two cores, a rebuild error still comes first, as on one")
    func concurrentLoadErrors() throws {
        var stored = try S.decodeDocument([UInt8](try Self.largeDocument().save(compress: false)))
        #expect(stored.ops.count >= StorageFile.concurrentBuildThreshold, "the load takes the two-core path")
        stored.heads = stored.heads.indices.map { ChangeHash(bytes: [UInt8](repeating: UInt8(7 + $0), count: 32)) }
        // The stored heads are wrong (a rebuild error) and the op rows of a
        // map hold an element key (an op-set error): the heads are reported.
        let mapRow = try #require(stored.ops.firstIndex { $0.object == nil })
        stored.ops[mapRow].key = .element(S.id(1, 0))
        do {
            _ = try Document(Data(DocumentChunk.encode(stored, compress: false)))
            Issue.record("a corrupt document loaded")
        } catch AutomergeError.load(.inChunk(0, .headsMismatch(let reported, _))) {
            #expect(reported == stored.heads)
        }
    }
}

/// A document chunk taken apart into its column data, to build inputs our
/// encoder would not write.
struct DocumentParts {
    var prefix: [UInt8]
    var changeColumns: [(spec: ColumnSpec, bytes: [UInt8])]
    var opColumns: [(spec: ColumnSpec, bytes: [UInt8])]
    var suffix: [UInt8]

    init(_ bytes: [UInt8]) throws {
        let contents = try ChunkFraming.split(bytes)[0].contents
        var reader = ByteReader(contents)
        _ = try reader.readActors("actors")
        _ = try reader.readHashes("heads")
        prefix = Array(contents[contents.startIndex..<reader.position])
        let changeLayout = try ColumnLayout.read(&reader, section: "changes")
        let opLayout = try ColumnLayout.read(&reader, section: "ops")
        changeColumns = try changeLayout.columns.map { (spec: $0.spec, bytes: Array(try reader.readBytes(UInt64($0.length), "c"))) }
        opColumns = try opLayout.columns.map { (spec: $0.spec, bytes: Array(try reader.readBytes(UInt64($0.length), "o"))) }
        suffix = Array(reader.readRest())
    }

    /// The chunk, with columns in the order given.
    var bytes: [UInt8] {
        var contents = prefix
        ColumnLayout.write(changeColumns.map { ($0.spec, $0.bytes.count) }, to: &contents)
        ColumnLayout.write(opColumns.map { ($0.spec, $0.bytes.count) }, to: &contents)
        for column in changeColumns + opColumns { contents += column.bytes }
        contents += suffix
        return ChunkFraming.frame(type: .document, contents: contents).bytes
    }
}

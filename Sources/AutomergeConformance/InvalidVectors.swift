@_spi(Conformance) import Automerge
import Foundation

/// The scenarios of the invalid vectors: each takes a valid file and makes
/// one minimal corruption (resealing the chunk so that only the intended
/// defect remains), named by its error category.
enum InvalidVectors {
    /// A small document touching every column: two actors, a map, a counter,
    /// a list with a deleted element, text with a mark.
    static func baseDocument() throws -> Document {
        let doc = Fixed.doc("aa")
        try doc.put(obj: .ROOT, key: "s", value: .String("str"))
        try doc.put(obj: .ROOT, key: "n", value: .Counter(1))
        try doc.put(obj: .ROOT, key: "f", value: .F64(1.5))
        try doc.put(obj: .ROOT, key: "u", value: .Uint(5))
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.splice(obj: list, start: 0, delete: 0, values: [.Int(1), .Int(2), .Int(3)])
        let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "hello")
        try doc.mark(obj: text, start: 0, end: 2, expand: .after, name: "bold", value: .Boolean(true))
        Fixed.commit(doc, 1, "base")
        let peer = Fixed.fork(doc, "bb")
        try peer.delete(obj: list, index: 0)
        try peer.increment(obj: .ROOT, key: "n", by: 2)
        try peer.put(obj: .ROOT, key: "s", value: .String("peer"))
        Fixed.commit(peer, 2)
        try doc.merge(other: peer)
        return doc
    }

    static func add(to b: inout VectorBuilder) throws {
        let doc = try baseDocument()
        let document = [UInt8](doc.save(compress: false))
        let changes = Storage.uncompressedChanges(doc)
        let first = changes[0]  // aa's change: every column but pred
        let second = changes[1]  // bb's change: deletes, increment, preds
        let docChunk = RawChunk.split(document)![0]

        // MARK: Framing
        func framing(_ name: String, _ error: String, _ what: String, _ bytes: [UInt8]) throws {
            try b.invalid("invalid-framing", name, error: error, what, bytes)
        }
        var bytes = document
        bytes[0] ^= 0xFF
        try framing("bad-magic", "bad-magic", "the first magic byte changed", bytes)
        bytes = document
        bytes[5] ^= 0x01
        try framing("bad-checksum-document", "bad-checksum", "one bit of a document chunk's checksum flipped", bytes)
        bytes = first
        bytes[4] ^= 0x80
        try framing("bad-checksum-change", "bad-checksum", "one bit of a change chunk's checksum flipped", bytes)
        var chunk = docChunk
        chunk.type = 9
        chunk.reseal()
        try framing("unknown-chunk-type", "unknown-chunk-type", "chunk type 9 with a correct checksum", chunk.bytes)
        try framing("truncated-magic", "truncated", "a file of three magic bytes", Array(document.prefix(3)))
        try framing("truncated-checksum", "truncated", "a file ending inside the checksum", Array(document.prefix(6)))
        try framing("truncated-length", "truncated", "a file ending inside the length LEB128",
                    Array(document.prefix(9)) + [0x80])
        try framing("length-past-end", "length-past-end", "a chunk one byte shorter than its length says", Array(document.dropLast()))
        let header = Array(document.prefix(9))
        var length = Bytes.uleb(UInt64(docChunk.contents.count))
        length[length.count - 1] |= 0x80
        try framing("overlong-chunk-length", "overlong-leb", "the chunk length with a redundant trailing 0x00 byte",
                    header + length + [0x00] + docChunk.contents)
        try framing("chunk-length-too-large", "leb-too-large", "a chunk length LEB128 of more than 64 bits",
                    header + Array(repeating: 0xFF, count: 10) + [0x01] + docChunk.contents)
        try framing("garbage-after-chunk", "bad-magic", "a valid document followed by stray bytes", document + [0x00, 0x01, 0x02, 0x03, 0x04, 0x05])
        let compressed = try compressedChange()
        try framing("compressed-change-bad-deflate", "invalid-deflate", "a compressed change chunk whose contents are not DEFLATE",
                    Array(compressed.prefix(8)) + [2, 4, 0xFF, 0xFF, 0xFF, 0xFF])
        bytes = compressed
        bytes[4] ^= 0x01
        try framing("compressed-change-bad-checksum", "bad-checksum",
                    "a compressed change whose checksum does not match the inflated change", bytes)

        // MARK: Document header
        let (_, offsets) = DocumentLayout.parse(docChunk.contents)!
        let sections = offsets.sections
        for (index, section) in sections.enumerated() where section.name != "heads index" {
            let end = index + 1 < sections.count ? sections[index + 1].offset : docChunk.contents.count
            guard end - section.offset >= 2 else { continue }
            let cut = section.offset + (end - section.offset) / 2
            let truncated = RawChunk(type: 0, contents: Array(docChunk.contents.prefix(cut))).bytes
            try b.invalid("invalid-document", "truncated-document-\(section.name.replacingOccurrences(of: " ", with: "-"))",
                          error: "truncated", "a document chunk (resealed) that ends inside its \(section.name)", truncated)
        }
        var contents = docChunk.contents
        contents.replaceSubrange(0..<1, with: [contents[0] | 0x80, 0x00])
        try b.invalid("invalid-document", "overlong-actor-count", error: "overlong-leb",
                      "the actor count written with a redundant byte", RawChunk(type: 0, contents: contents).bytes)
        try b.invalid("invalid-document", "heads-mismatch", error: "heads-mismatch",
                      "a stored head replaced by a hash no change has", try Storage.editDocument(document) { layout in
                          layout.heads[0] = Bytes.sha256(Array("no such change".utf8))
                          layout.heads.sort { $0.lexicographicallyPrecedes($1) }
                      })
        try b.invalid("invalid-document", "heads-index-trailing-bytes", error: "trailing-bytes",
                      "bytes after the heads index", try Storage.editDocument(document) { $0.trailer += [0, 0] })

        // MARK: Columns
        func columns(_ name: String, _ error: String, _ what: String, _ bytes: [UInt8]) throws {
            try b.invalid("invalid-columns", name, error: error, what, bytes)
        }
        try columns("document-columns-out-of-order", "columns-out-of-order", "two op columns of a document swapped",
                    try Storage.editDocument(document) { $0.opColumns.swapAt(0, 1) })
        try columns("change-columns-out-of-order", "columns-out-of-order", "two op columns of a change swapped",
                    try Storage.editChange(first) { $0.columns.swapAt(1, 2) })
        try columns("value-column-without-metadata", "lone-value-column", "a change's raw value column without its metadata column",
                    try Storage.editChange(first) { $0.columns.removeAll { $0.spec == 86 } })
        try columns("deflated-column-in-change", "compressed-column-in-change", "a change column with the deflate bit set",
                    try Storage.editChange(first) { layout in
                        if let i = layout.columns.firstIndex(where: { $0.spec == 66 }) { layout.columns[i].spec |= 8 }
                    })
        let big = Fixed.doc()
        let list = try big.putObject(obj: .ROOT, key: "l", ty: .List)
        for i in 0..<300 { try big.insert(obj: list, index: UInt64(i), value: .Int(Int64(i))) }
        try columns("invalid-deflate-column", "invalid-deflate", "a deflated document column whose data is not DEFLATE",
                    try Storage.editDocument([UInt8](big.save())) { layout in
                        guard let i = layout.opColumns.firstIndex(where: { $0.spec & 8 != 0 }) else {
                            throw VectorError.generator("no deflated column")
                        }
                        layout.opColumns[i].data = [0xFF, 0xFF, 0xFF, 0xFF]
                    })
        try columns("non-canonical-rle", "non-canonical-rle", "a document's action column as repeat runs of length 1",
                    try Storage.editDocument(document) { layout in
                        try Storage.editColumn(&layout.opColumns, 66) { data in
                            let values = ColumnCodec.decodeRLE(data, signed: false)!.map { $0! }
                            data = ColumnCodec.encodeRLENonCanonical(values, signed: false)
                        }
                    })
        try columns("non-canonical-boolean", "non-canonical-boolean", "a document's insert column with a trailing zero count",
                    try Storage.editDocument(document) { layout in
                        try Storage.editColumn(&layout.opColumns, 52) { $0 += [0] }
                    })
        try columns("null-in-action-column", "unexpected-null", "a null in a document's (non-nullable) action column",
                    try Storage.editDocument(document) { layout in
                        try Storage.editValues(&layout.opColumns, 66) { $0[0] = nil }
                    })
        try columns("column-length-mismatch", "column-length-mismatch", "a document's action column one value short",
                    try Storage.editDocument(document) { layout in
                        try Storage.editValues(&layout.opColumns, 66) { $0.removeLast() }
                    })

        // MARK: Values
        func values(_ name: String, _ error: String, _ what: String, _ bytes: [UInt8]) throws {
            try b.invalid("invalid-values", name, error: error, what, bytes)
        }
        try values("unknown-action-8", "unknown-action", "a change op with action 8",
                   try Storage.editChange(first) { try Storage.editValues(&$0.columns, 66) { $0[0] = 8 } })
        try values("unknown-action-48", "unknown-action", "a document op with action 48",
                   try Storage.editDocument(document) { try Storage.editValues(&$0.opColumns, 66) { $0[0] = 48 } })
        try values("non-numeric-increment", "non-numeric-increment", "an increment whose value is a string",
                   try Storage.editChange(second) { layout in
                       let actions = ColumnCodec.decodeRLE(layout.columns.first { $0.spec == 66 }!.data, signed: false)!
                       let row = actions.firstIndex(of: 5)!
                       try Storage.editValues(&layout.columns, 86) { meta in meta[row] = (meta[row]! & ~0xF) | 6 }
                   })
        try values("actor-index-out-of-range-change", "actor-index-out-of-range", "a change's object actor index past its actor list",
                   try Storage.editChange(first) { layout in
                       try Storage.editValues(&layout.columns, 1) { actors in
                           let row = actors.firstIndex { $0 != nil }!
                           actors[row] = 9
                       }
                   })
        try values("actor-index-out-of-range-document", "actor-index-out-of-range", "a document op id actor index past the actor table",
                   try Storage.editDocument(document) { try Storage.editValues(&$0.opColumns, 33) { $0[0] = 7 } })
        try values("invalid-utf8-map-key", "invalid-utf8", "a map key with a byte that is not UTF-8",
                   try Storage.editChange(first) { try replaceByte(in: &$0.columns, 21, UInt8(ascii: "s"), with: 0xFF) })
        try values("invalid-utf8-string-value", "invalid-utf8", "a string value with an invalid UTF-8 sequence",
                   try Storage.editChange(first) { try replaceByte(in: &$0.columns, 87, UInt8(ascii: "t"), with: 0xC3) })
        try values("invalid-utf8-message", "invalid-utf8", "a change message that is not UTF-8",
                   try Storage.editChange(first) { $0.message = [0x62, 0xE2, 0x28, 0xA1] })
        try values("invalid-utf8-mark-name", "invalid-utf8", "a document mark name that is not UTF-8",
                   try Storage.editDocument(document) { try replaceByte(in: &$0.opColumns, 165, UInt8(ascii: "b"), with: 0x80) })
        try values("float-wrong-length", "invalid-value", "an f64 value of 4 bytes",
                   try Storage.editChange(first) { try replaceValue(in: &$0.columns, typeCode: 5, with: [0, 0, 0xC0, 0x3F]) })
        try values("overlong-leb-in-value", "overlong-leb", "a uint value 5 written as the two bytes 85 00",
                   try Storage.editChange(first) { try replaceValue(in: &$0.columns, typeCode: 3, with: [0x85, 0x00]) })
        try values("start-op-zero", "start-op-out-of-range", "a change whose start op is 0",
                   try Storage.editChange(first) { $0.startOp = 0 })
        try values("start-op-too-large", "start-op-out-of-range", "a change whose start op is 2^32",
                   try Storage.editChange(first) { $0.startOp = 1 << 32 })
        try values("op-counter-overflow", "op-counter-overflow", "a change whose ops run past op counter 2^32-1",
                   try Storage.editChange(first) { $0.startOp = UInt64(UInt32.max) - 1 })

        // MARK: History
        func history(_ name: String, _ error: String, _ what: String, _ bytes: [UInt8]) throws {
            try b.invalid("invalid-history", name, error: error, what, bytes)
        }
        let chain = Fixed.doc("aa")
        for i in 0..<3 {
            try chain.put(obj: .ROOT, key: "k", value: .Int(Int64(i)))
            Fixed.commit(chain, i)
        }
        let chainDoc = [UInt8](chain.save(compress: false))
        try history("sequence-gap", "sequence-gap", "an actor's changes numbered 1, 2, 4",
                    try Storage.editDocument(chainDoc) { try Storage.editValues(&$0.changeColumns, 3) { $0[2] = 4 } })
        try history("changes-out-of-order", "changes-out-of-order", "an actor's changes numbered 2, 1, 3",
                    try Storage.editDocument(chainDoc) { try Storage.editValues(&$0.changeColumns, 3) { $0[0] = 2; $0[1] = 1 } })
        try history("incorrect-max-op", "incorrect-max-op", "a change whose max op is below its predecessor's",
                    try Storage.editDocument(chainDoc) { try Storage.editValues(&$0.changeColumns, 19) { $0[1] = 0 } })
        try history("dependency-out-of-range", "dependency-out-of-range", "a dependency index naming a change row that does not exist",
                    try Storage.editDocument(chainDoc) { try Storage.editValues(&$0.changeColumns, 67) { $0[0] = 99 } })
        let chainChanges = Storage.uncompressedChanges(chain)
        try history("missing-dependencies", "missing-dependencies", "a file of change chunks whose first change is absent",
                    Array(chainChanges.dropFirst().joined()))
        let twin = Fixed.doc("aa")
        try twin.put(obj: .ROOT, key: "k", value: .String("twin"))
        try history("duplicate-sequence-number", "duplicate-seq-number", "two different changes with the same actor and sequence number",
                    chainChanges[0] + Storage.uncompressedChanges(twin)[0])
        try history("mark-end-before-begin", "mark-end-before-begin", "a document whose mark end anchor precedes its begin anchor",
                    try markEndBeforeBegin())

        // MARK: Forbidden by the spec, loaded by Rust
        // The spec says to abort on two columns of one id and type; Rust 0.11
        // loads them (its layout parser's duplicate check never fires) and
        // reads the later copy. Each copy here is byte-identical to its
        // neighbour, so the reference's reading is the unedited file's, but
        // for the change's hash: Rust's is that of the chunk as written.
        try b.either("forbidden-loaded-by-rust", "document-duplicate-column", error: "duplicate-column",
                     "a document op column listed twice (the same bytes both times)",
                     try Storage.editDocument(document) { $0.opColumns.insert($0.opColumns[2], at: 2) },
                     readAs: try Document(Data(document)))
        try b.either("forbidden-loaded-by-rust", "change-duplicate-column", error: "duplicate-column",
                     "a change op column listed twice (the same bytes both times)",
                     try Storage.editChange(first) { $0.columns.insert($0.columns[1], at: 1) },
                     readAs: try Document(Data(first)))
    }

    /// Replaces the first `byte` in the column `spec` (a byte of a string, to make it invalid UTF-8).
    static func replaceByte(in columns: inout [RawColumn], _ spec: UInt64, _ byte: UInt8, with replacement: UInt8) throws {
        try Storage.editColumn(&columns, spec) { data in
            guard let index = data.firstIndex(of: byte) else { throw VectorError.generator("no byte \(byte) in column \(spec)") }
            data[index] = replacement
        }
    }

    /// Replaces the raw bytes of the first value of type `typeCode` (and its length in the metadata column).
    static func replaceValue(in columns: inout [RawColumn], typeCode: Int64, with bytes: [UInt8]) throws {
        guard let metaColumn = columns.first(where: { $0.spec == 86 }),
              var meta = ColumnCodec.decodeRLE(metaColumn.data, signed: false),
              let row = meta.firstIndex(where: { ($0 ?? 0) & 0xF == typeCode }) else {
            throw VectorError.generator("no value of type \(typeCode)")
        }
        let offset = meta[..<row].reduce(0) { $0 + Int(($1 ?? 0) >> 4) }
        let length = Int(meta[row]! >> 4)
        meta[row] = Int64(bytes.count) << 4 | typeCode
        try Storage.editColumn(&columns, 86) { $0 = ColumnCodec.encodeRLE(meta, signed: false) }
        try Storage.editColumn(&columns, 87) { $0.replaceSubrange(offset..<offset + length, with: bytes) }
    }

    /// A change big enough to be stored compressed (type 2).
    static func compressedChange() throws -> [UInt8] {
        let doc = Fixed.doc()
        try doc.put(obj: .ROOT, key: "long", value: .String(String(repeating: "compress ", count: 50)))
        let bytes = [UInt8](doc.change(hash: doc.getHistory()[0])!.bytes)
        guard bytes[8] == 2 else { throw VectorError.generator("expected a compressed change") }
        return bytes
    }

    /// Text "ab" with a mark whose begin is moved after "b" and whose end is
    /// moved to the start: applied as a change, then saved as a document.
    static func markEndBeforeBegin() throws -> [UInt8] {
        let doc = Fixed.doc("aa")
        let text = try doc.putObject(obj: .ROOT, key: "t", ty: .Text)
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "ab")
        Fixed.commit(doc, 1)
        try doc.mark(obj: text, start: 0, end: 1, expand: .none, name: "m", value: .Boolean(true))
        Fixed.commit(doc, 2)
        let changes = Storage.uncompressedChanges(doc)
        // Text op ids: make 1, 'a' 2, 'b' 3; the mark ops are 4 (begin) and 5 (end).
        let patched = try Storage.editChange(changes[1]) { layout in
            try Storage.editValues(&layout.columns, 17) { $0 = [0, nil] }
            try Storage.editValues(&layout.columns, 19) { $0 = [3, 0] }
        }
        // Refused by a document's own apply (it could not be saved and loaded again).
        let rebuilt = Document()
        try rebuilt.applyEncodedChangesAcceptingMisorderedMarks(Data(changes[0] + patched))
        return [UInt8](rebuilt.save(compress: false))
    }
}

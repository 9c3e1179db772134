import Foundation
import AutomergeConformance
import Testing
@_spi(Conformance) @testable import Automerge

@Suite("Chunk framing")
struct ChunkTests {
    static let emptyDocument = bytesFromHex("85 6f 4a 83 b8 1a 95 44 00 04 00 00 00 00")

    @Test("an empty document is the 14 bytes every implementation writes")
    func emptyDocument() throws {
        let empty = StoredDocument(actors: [], heads: [], changes: [], ops: [], headsIndex: [])
        #expect(DocumentChunk.encode(empty, compress: false) == Self.emptyDocument)
        #expect(DocumentChunk.encode(empty, compress: true) == Self.emptyDocument)
        let chunks = try ChunkFraming.split(Self.emptyDocument)
        #expect(chunks.count == 1)
        #expect(chunks[0].type == .document)
        #expect(try DocumentChunk.decode(chunks[0]) == empty)
        #expect(try ChangeReconstruction.reconstruct(empty).isEmpty)
    }

    @Test("a file is any concatenation of chunks")
    func concatenation() throws {
        let file = StorageSamples.documentBytes + StorageSamples.changeBytes + Self.emptyDocument
        let chunks = try ChunkFraming.split(file)
        #expect(chunks.map(\.type) == [.document, .change, .document])
        #expect(chunks.map(\.index) == [0, 1, 2])
        #expect(chunks.map { Array($0.stored) } == [StorageSamples.documentBytes, StorageSamples.changeBytes,
                                                   Self.emptyDocument])
        #expect(try StorageFile.decode(file).count == 3)
        #expect(try ChunkFraming.split([]).isEmpty)
    }

    @Test("the checksum is the first 4 bytes of SHA-256(type, length, contents)")
    func checksum() throws {
        var corrupt = Self.emptyDocument
        corrupt[13] = 1  // change a content byte
        #expect(throws: LoadError.inChunk(0, .badChecksum)) { try ChunkFraming.split(corrupt) }
        var badChecksum = Self.emptyDocument
        badChecksum[4] ^= 0xff
        #expect(throws: LoadError.inChunk(0, .badChecksum)) { try ChunkFraming.split(badChecksum) }
    }

    @Test("bad magic, unknown types and bundles are rejected")
    func headerErrors() {
        var badMagic = Self.emptyDocument
        badMagic[0] = 0x86
        #expect(throws: LoadError.inChunk(0, .badMagic)) { try ChunkFraming.split(badMagic) }
        var unknown = Self.emptyDocument
        unknown[8] = 7
        #expect(throws: LoadError.inChunk(0, .unknownChunkType(7))) { try ChunkFraming.split(unknown) }
        var bundle = Self.emptyDocument
        bundle[8] = 3
        #expect(throws: LoadError.inChunk(0, .unsupportedChunkType(3))) { try ChunkFraming.split(bundle) }
        // The second chunk's error names its index.
        #expect(throws: LoadError.inChunk(1, .badMagic)) { try ChunkFraming.split(Self.emptyDocument + [0, 1, 2, 3]) }
    }

    @Test("a chunk length past the end of the file is rejected without allocating")
    func lengthPastEnd() {
        // Length 2^60.
        let bytes = bytesFromHex("85 6f 4a 83 00 00 00 00 00 80 80 80 80 80 80 80 80 10")
        #expect(throws: LoadError.inChunk(0, .lengthPastEnd(what: "chunk contents", length: 1 << 60, remaining: 0))) {
            try ChunkFraming.split(bytes)
        }
    }

    @Test("an overlong chunk length is rejected (framing is parsed strictly)")
    func overlongLength() {
        let bytes = bytesFromHex("85 6f 4a 83 b8 1a 95 44 00 84 00 00 00 00 00")
        #expect(throws: LoadError.inChunk(0, .overlongLEB128(what: "chunk contents"))) { try ChunkFraming.split(bytes) }
    }

    @Test("a wrong chunk type for the decoder is rejected")
    func wrongType() throws {
        let chunk = try ChunkFraming.split(Self.emptyDocument)[0]
        #expect(throws: LoadError.unexpectedChunkType(expected: 1, found: 0)) { try ChangeChunk.decode(chunk) }
        let change = try ChunkFraming.split(StorageSamples.changeBytes)[0]
        #expect(throws: LoadError.unexpectedChunkType(expected: 0, found: 1)) { try DocumentChunk.decode(change) }
    }
}

@Suite("Compressed change chunks")
struct CompressedChangeTests {
    /// A change whose chunk is well over 256 bytes.
    static var bigChange: StoredChange {
        var change = StorageSamples.change
        change.message = String(repeating: "lorem ipsum ", count: 40)
        return change
    }

    @Test("a change chunk over 256 bytes is stored compressed, under the uncompressed checksum")
    func compressedForm() throws {
        let encoded = ChangeChunk.encode(Self.bigChange)
        #expect(encoded.bytes.count > 256)
        let stored = encoded.storageBytes
        #expect(stored[8] == 2)
        #expect(stored[4..<8] == encoded.bytes[4..<8])
        #expect(stored.count < encoded.bytes.count)
        let chunk = try ChunkFraming.split(stored)[0]
        #expect(chunk.type == .compressedChange)
        #expect(chunk.changeHash == encoded.hash)
        #expect(try ChangeChunk.decode(chunk) == Self.bigChange)
        #expect(chunk.uncompressedChange.bytes == encoded.bytes)
    }

    @Test("a small change chunk is stored as is")
    func smallStaysUncompressed() {
        let encoded = ChangeChunk.encode(StorageSamples.change)
        #expect(encoded.bytes.count <= 256)
        #expect(encoded.storageBytes == encoded.bytes)
    }

    @Test("a compressed change whose contents do not match the checksum is rejected")
    func tamperedCompressed() throws {
        let encoded = ChangeChunk.encode(Self.bigChange)
        var stored = encoded.storageBytes
        stored[5] ^= 1
        #expect(throws: LoadError.inChunk(0, .badChecksum)) { try ChunkFraming.split(stored) }
        // Garbage instead of a DEFLATE stream.
        let garbage = ChunkFraming.frame(type: .compressedChange, checksum: encoded.bytes[4..<8],
                                         contents: [0xff, 0xff, 0xff, 0xff])
        #expect(throws: LoadError.inChunk(0, .invalidDeflate(what: "compressed change"))) {
            try ChunkFraming.split(garbage)
        }
        // A truncated DEFLATE stream.
        let deflated = Deflate.compress(encoded.bytes)
        let truncated = ChunkFraming.frame(type: .compressedChange, checksum: encoded.bytes[4..<8],
                                           contents: Array(deflated.prefix(deflated.count / 2)))
        #expect(throws: LoadError.inChunk(0, .invalidDeflate(what: "compressed change"))) {
            try ChunkFraming.split(truncated)
        }
    }

    @Test("columns deflated as a batch, long ones in pieces on several cores, inflate back and do not depend on the cores")
    func batchDeflate() throws {
        // Text-like bytes: words from a small vocabulary, so that matches
        // reach back across the cuts between pieces.
        var generator = SeededGenerator(seed: 7)
        let words = ["automerge", "swift", "column", "deflate", "piece", "window", "text", "merge"]
        func text(_ count: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            while bytes.count < count { bytes += Array((words[Int(generator.next() % 8)] + " ").utf8) }
            return Array(bytes.prefix(count))
        }
        let inputs = [text(300_000), [], text(70_000), text(1_000), text(3 * Deflate.pieceSize)]
        #expect(inputs.reduce(0) { $0 + $1.count } >= Deflate.concurrencyThreshold)
        let settings = inputs.map { (bytes: $0, setting: Deflate.Setting.default) }
        let concurrent = Deflate.compress(each: settings, concurrently: true)
        #expect(concurrent == Deflate.compress(each: settings, concurrently: false))
        for (input, deflated) in zip(inputs, concurrent) {
            #expect(try Deflate.inflate(deflated[...], limit: input.count, what: "column") == input)
            if input.count <= Deflate.pieceSize {
                #expect(deflated == Deflate.compress(input), "a short column is one ordinary stream")
            } else {
                // The dictionary keeps matches across cuts: the pieces cost
                // a few bytes each, not a fresh start.
                let whole = Deflate.compress(input).count
                #expect(deflated.count <= whole + whole / 100)
            }
        }
    }

    @Test("a save deflates text at level 5, delta, group and boolean columns with Huffman codes alone, other integers at 4 (ColumnType.deflateSetting)")
    func columnSettings() throws {
        #expect(ColumnSpec.value.type.deflateSetting(.fast) == .level(5))
        #expect(ColumnSpec.keyString.type.deflateSetting(.fast) == .level(5))
        for spec in [ColumnSpec.idCounter, .keyCounter, .succCounter, .succGroup, .insert, .expand] {
            #expect(spec.type.deflateSetting(.fast) == .huffmanOnly)
        }
        for spec in [ColumnSpec.valueMeta, .idActor, .action] {
            #expect(spec.type.deflateSetting(.fast) == .level(4))
        }
        // Each input of a batch at its own setting: a short one is exactly
        // one stream at that setting, and every one inflates back, long
        // Huffman-only ones (cut into pieces without a dictionary) too.
        var generator = SeededGenerator(seed: 11)
        let input = (0..<20_000).map { _ in UInt8(generator.next() % 5) }
        let long = (0..<(2 * Deflate.pieceSize + 99)).map { _ in UInt8(generator.next() % 7) }
        let deflated = Deflate.compress(each: [(input, .level(4)), (input, .level(6)), (input, .huffmanOnly),
                                               (long, .huffmanOnly)], concurrently: false)
        #expect(deflated[0] == Deflate.compress(input, setting: .level(4)))
        #expect(deflated[1] == Deflate.compress(input, setting: .level(6)))
        #expect(deflated[2] == Deflate.compress(input, setting: .huffmanOnly))
        #expect(Set(deflated[0..<3]).count == 3)
        for (bytes, original) in zip(deflated, [input, input, input, long]) {
            #expect(try Deflate.inflate(bytes[...], limit: original.count, what: "column") == original)
        }
    }

    @Test("a DEFLATE bomb fails at the inflation limit instead of exhausting memory")
    func inflationLimit() {
        let bomb = Deflate.compress([UInt8](repeating: 0, count: 4 << 20))
        let chunk = ChunkFraming.frame(type: .compressedChange, checksum: [0, 0, 0, 0], contents: bomb)
        var limits = DecodeLimits()
        limits.maxInflatedBytes = 1 << 20
        #expect(throws: LoadError.inChunk(0, .inflatedTooLarge(what: "compressed change", limit: 1 << 20))) {
            try ChunkFraming.split(chunk, limits: limits)
        }
    }
}

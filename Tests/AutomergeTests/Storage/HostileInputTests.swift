import Testing
import AutomergeTestSupport
@_spi(Conformance) @testable import Automerge

/// Untrusted bytes must be rejected with a `LoadError`: no trap, no
/// unbounded allocation, no super-linear time.
@Suite("Hostile input", .ownThread)
struct HostileInputTests {
    typealias S = StorageSamples

    /// Decodes everything in `bytes` the way a load would.
    func load(_ bytes: [UInt8]) throws(LoadError) {
        _ = try StorageFile.decode(bytes)
    }

    @Test("every truncation of a valid document or change is rejected",
          arguments: [("document", S.documentBytes), ("change", S.changeBytes)])
    func truncatedFiles(_ name: String, _ bytes: [UInt8]) throws {
        try load(bytes)
        for length in 1..<bytes.count {
            #expect(throws: LoadError.self, "\(name) cut at \(length)") { try load(Array(bytes.prefix(length))) }
        }
    }

    @Test("every truncation of a chunk's contents, re-framed with a valid checksum, never crashes",
          arguments: [("document", S.documentBytes), ("change", S.changeBytes)])
    func truncatedContents(_ name: String, _ bytes: [UInt8]) throws {
        let chunk = try ChunkFraming.split(bytes)[0]
        let contents = Array(chunk.contents)
        var rejected = 0
        for length in 0..<contents.count {
            let reframed = ChunkFraming.frame(type: chunk.type, contents: Array(contents.prefix(length))).bytes
            do { try load(reframed) } catch { rejected += 1 }
        }
        // Only cuts inside the optional trailing parts (a document's heads
        // index, a change's extra bytes) can still decode.
        #expect(rejected >= contents.count - 3)
    }

    @Test("flipping any single byte of a valid chunk's contents never crashes",
          arguments: [("document", S.documentBytes), ("change", S.changeBytes)])
    func bitFlips(_ name: String, _ bytes: [UInt8]) throws {
        let chunk = try ChunkFraming.split(bytes)[0]
        let contents = Array(chunk.contents)
        for index in contents.indices {
            for flip: UInt8 in [0x01, 0x40, 0x80, 0xff] {
                var mutated = contents
                mutated[index] ^= flip
                let reframed = ChunkFraming.frame(type: chunk.type, contents: mutated).bytes
                _ = try? load(reframed)
            }
        }
    }

    @Test("length fields claiming 2^60 bytes fail without allocating")
    func hugeLengths() {
        let huge: [UInt8] = bytesFromHex("80 80 80 80 80 80 80 80 10")  // 2^60
        // A change whose author actor id claims 2^60 bytes.
        let actor = ChunkFraming.frame(type: .change, contents: [0x00] + huge + [1, 2, 3]).bytes
        #expect(throws: LoadError.inChunk(0, .lengthPastEnd(what: "change actor", length: 1 << 60, remaining: 3))) {
            try load(actor)
        }
        // A document claiming 2^60 actors, and 2^60 heads.
        let actors = ChunkFraming.frame(type: .document, contents: huge + [0, 0]).bytes
        #expect(throws: LoadError.inChunk(0, .lengthPastEnd(what: "document actors", length: 1 << 60, remaining: 2))) {
            try load(actors)
        }
        let heads = ChunkFraming.frame(type: .document, contents: [0] + huge + [0, 0]).bytes
        #expect(throws: LoadError.inChunk(0, .lengthPastEnd(what: "document heads", length: UInt64.max, remaining: 2))) {
            try load(heads)
        }
        // A change whose column metadata claims 2^60 columns.
        var contents: [UInt8] = [0]
        contents.appendLengthPrefixed(S.actorA.bytes)
        contents += [1, 1, 0, 0, 0] + huge
        #expect(throws: LoadError.inChunk(0, .lengthPastEnd(
            what: "change op column count", length: 1 << 61, remaining: 0))) {
            try load(ChunkFraming.frame(type: .change, contents: contents).bytes)
        }
    }

    @Test("runs claiming 2^60 rows fail at the row limit")
    func hugeRuns() {
        // A change whose action column is a run of 2^60 ones.
        let columns = S.oneOpColumns().map { $0.spec == 66 ? (66, bytesFromHex("80 80 80 80 80 80 80 80 10 01")) : $0 }
        #expect(throws: LoadError.inChunk(0, .tooManyRows(column: "action", limit: 1 << 20))) {
            try load(S.rawChange(columns: columns))
        }
        // A document whose op id counter column is 2^60 nulls... in a canonical,
        // non-nullable column, and a document with a valid but enormous group.
        let group = S.oneOpColumns().map { $0.spec == 112 ? (112, bytesFromHex("7f 80 80 80 80 80 80 80 80 10")) : $0 }
        #expect(throws: LoadError.self) { try load(S.rawChange(columns: group)) }
    }

    @Test("padding cannot raise the row limit past its cap (2^25 rows)")
    func paddedRowLimit() {
        // Every column a run of 2^26 rows, consistent with each other, and a
        // 512 KB message: by bytes alone the limit would be 2^28 rows, and
        // decoding would build 2^26 rows (4 GB) before anything failed.
        var runOf26: [UInt8] = []
        LEB128.appendSigned(1 << 26, to: &runOf26)
        let columns: [(spec: UInt32, bytes: [UInt8])] = [(21, runOf26 + [0x01, 0x6b]), (66, runOf26 + [0x01])]
        let padded = S.rawChange(message: [UInt8](repeating: 0x61, count: 512 * 1024), columns: columns)
        #expect(throws: LoadError.inChunk(0, .tooManyRows(column: "action", limit: 1 << 25))) { try load(padded) }
    }

    @Test("a value metadata length of 2^60 fails without allocating")
    func hugeValue() {
        var meta: [UInt8] = [0x7f]
        LEB128.appendUnsigned(1 << 60 | 7, to: &meta)
        let columns = S.oneOpColumns().map { $0.spec == 86 ? (86, meta) : $0 }
        #expect(throws: LoadError.inChunk(0, .lengthPastEnd(what: "value raw", length: 1 << 56, remaining: 0))) {
            try load(S.rawChange(columns: columns))
        }
    }
}

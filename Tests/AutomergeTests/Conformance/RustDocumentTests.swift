import Foundation
import Testing
import AutomergeTestSupport
@_spi(Conformance) @testable import Automerge
import AutomergeConformance

/// Files written by the Rust implementation load to the same document Rust
/// sees, and save back to the same bytes.
@Suite("Documents written by Rust", .enabled(if: SharedFiles.available, SharedFiles.skipMessage), .ownThread)
struct RustDocumentTests {
    static let documents = SharedFiles.files(in: "docs", suffix: ".automerge") + SharedFiles.files(in: "oracle-gen", suffix: ".automerge")

    static func expectedDump(for url: URL) throws -> JSONValue {
        let candidates = [url.path + ".expected.json", url.path + ".json"]
        let path = try #require(candidates.first { FileManager.default.fileExists(atPath: $0) })
        return try JSONParser.parse(SharedFiles.bytes(URL(fileURLWithPath: path)))
    }

    @Test("dumps equal Rust's dump", arguments: documents)
    func dumpMatchesRust(file: URL) throws {
        let document = try Document(Data(try SharedFiles.bytes(file)))
        let expected = try Self.expectedDump(for: file)
        #expect(CanonicalDump.dump(document) == expected)
        // What `automerge dump` prints, written without a JSONValue tree, reads back as the same dump.
        #expect(try JSONParser.parse(CanonicalDump.serialized(document)) == expected)
    }

    @Test("save(compress: false) reproduces Rust's uncompressed save byte for byte", arguments: documents)
    func uncompressedSaveIsByteIdentical(file: URL) throws {
        let document = try Document(Data(try SharedFiles.bytes(file)))
        let expected = try SharedFiles.bytes(URL(fileURLWithPath: file.path + ".nocompress"))
        let saved = [UInt8](document.save(compress: false))
        #expect(saved.count == expected.count)
        #expect(saved == expected)
    }

    @Test("save() deflates the columns Rust deflates and reloads to the same dump", arguments: documents)
    func compressedSaveMatchesRustColumns(file: URL) throws {
        let original = try SharedFiles.bytes(file)
        let document = try Document(Data(original))
        let saved = [UInt8](document.save())
        #expect(try Self.columnSpecs(saved) == (try Self.columnSpecs(original)))
        #expect(CanonicalDump.dump(try Document(Data(saved))) == CanonicalDump.dump(document))
    }

    @Test("the change chunks of a document load to the same dump", arguments: SharedFiles.files(in: "oracle-gen", suffix: ".changes"))
    func changeChunksMatchRust(file: URL) throws {
        let document = try Document(Data(try SharedFiles.bytes(file)))
        let base = URL(fileURLWithPath: String(file.path.dropLast(".changes".count)))
        #expect(CanonicalDump.dump(document) == (try Self.expectedDump(for: base)))
    }

    /// The column specs (deflate bit included) of a file's document chunk.
    static func columnSpecs(_ bytes: [UInt8]) throws -> [UInt32] {
        let chunk = try #require(try ChunkFraming.split(bytes).first)
        var reader = ByteReader(chunk.contents)
        _ = try reader.readActors("actors")
        _ = try reader.readHashes("heads")
        let changes = try ColumnLayout.read(&reader, section: "change")
        let ops = try ColumnLayout.read(&reader, section: "op")
        return (changes.columns + ops.columns).map(\.spec.raw)
    }
}

/// The Rust test suite's own files: each loads, or is rejected, as Rust does.
@Suite("Rust fixtures", .enabled(if: SharedFiles.available, SharedFiles.skipMessage), .ownThread)
struct RustFixtureDocumentTests {
    static let fixtures = (SharedFiles.files(in: "fixtures/rust-fixtures", suffix: "") + SharedFiles.files(in: "fixtures/rust-fuzz-crashers", suffix: ""))
        .filter { !$0.path.hasSuffix(".json") }

    @Test("loads or is rejected as Rust decides", arguments: fixtures)
    func fixtureBehavesAsRust(file: URL) throws {
        let expected = try RustDocumentTests.expectedDump(for: file)
        let (dump, loaded) = CanonicalDump.dump(bytes: Data(try SharedFiles.bytes(file)))
        guard case .object(let members) = expected else { Issue.record("expected dump is not an object"); return }
        if RustFixtureTests.rejectedSince011.contains(file.lastPathComponent) {
            // 0.11 rejects: "invalid mark operation order: mark end occurs before mark begin".
            #expect(!loaded)
        } else if members["error"] != nil {
            #expect(!loaded, "Rust rejects \(file.lastPathComponent); we loaded \(dump.serialized.prefix(200))")
        } else {
            #expect(loaded)
            #expect(dump == expected)
            if loaded {
                let document = try Document(Data(try SharedFiles.bytes(file)))
                #expect(try JSONParser.parse(CanonicalDump.serialized(document)) == expected)
            }
        }
    }
}

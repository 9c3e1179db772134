import Foundation
import Testing
import AutomergeTestSupport
@_spi(Conformance) @testable import Automerge

/// Byte-exact agreement with files the Rust implementation wrote
/// (`../shared/docs` and `../shared/oracle-gen`).
@Suite("Round trips of Rust-written files", .enabled(if: SharedFiles.available, SharedFiles.skipMessage), .ownThread)
struct RustFileRoundTripTests {
    static let directories = ["docs", "oracle-gen"]

    static var nocompressFiles: [URL] {
        directories.flatMap { SharedFiles.files(in: $0, suffix: ".nocompress") }
    }

    static var changesFiles: [URL] {
        directories.flatMap { SharedFiles.files(in: $0, suffix: ".changes") }
    }

    /// The single document chunk of an uncompressed save.
    static func document(_ url: URL) throws -> (chunk: Chunk, document: StoredDocument) {
        let chunks = try ChunkFraming.split(SharedFiles.bytes(url))
        #expect(chunks.count == 1, "\(url.lastPathComponent) holds one chunk")
        let chunk = try #require(chunks.first)
        return (chunk, try DocumentChunk.decode(chunk))
    }

    @Test("there are Rust files to compare with")
    func filesExist() {
        #expect(!Self.nocompressFiles.isEmpty)
        #expect(!Self.changesFiles.isEmpty)
    }

    @Test("decoding then encoding without compression gives the Rust bytes back", arguments: nocompressFiles)
    func uncompressedDocumentRoundTrip(_ url: URL) throws {
        let original = try SharedFiles.bytes(url)
        let (_, document) = try Self.document(url)
        let encoded = DocumentChunk.encode(document, compress: false)
        #expect(encoded.count == original.count)
        #expect(encoded == original, "\(url.lastPathComponent): re-encoding differs")
    }

    @Test("a compressed save decodes to the same document as its uncompressed twin", arguments: nocompressFiles)
    func compressedDocumentMatchesUncompressed(_ url: URL) throws {
        let compressedURL = url.deletingPathExtension()  // strips .nocompress
        let chunks = try ChunkFraming.split(SharedFiles.bytes(compressedURL))
        let compressed = try DocumentChunk.decode(try #require(chunks.first))
        let (_, plain) = try Self.document(url)
        #expect(compressed == plain)
        // Trailing chunks, if any, are changes.
        for chunk in chunks.dropFirst() { _ = try ChangeChunk.decode(chunk) }
    }

    @Test("our compressed encoding decodes to the same document", arguments: nocompressFiles)
    func ownCompressionRoundTrip(_ url: URL) throws {
        let (_, document) = try Self.document(url)
        let compressed = DocumentChunk.encode(document, compress: true)
        let chunks = try ChunkFraming.split(compressed)
        #expect(try DocumentChunk.decode(try #require(chunks.first)) == document)
    }

    @Test("every change chunk decodes and re-encodes to the same bytes", arguments: changesFiles)
    func changeChunksRoundTrip(_ url: URL) throws {
        let chunks = try ChunkFraming.split(SharedFiles.bytes(url))
        #expect(!chunks.isEmpty)
        for chunk in chunks {
            let change = try ChangeChunk.decode(chunk)
            let encoded = ChangeChunk.encode(change)
            #expect(encoded.bytes[...] == chunk.stored, "\(url.lastPathComponent) chunk \(chunk.index)")
            #expect(encoded.hash == chunk.changeHash)
        }
    }

    @Test("changes rebuilt from a document are the Rust change chunks", arguments: changesFiles)
    func reconstructionMatchesRustChanges(_ url: URL) throws {
        let rustChunks = try ChunkFraming.split(SharedFiles.bytes(url))
        let (_, document) = try Self.document(URL(fileURLWithPath: url.path.replacingOccurrences(
            of: ".changes", with: ".nocompress")))
        let rebuilt = try ChangeReconstruction.reconstruct(document)
        let rustByHash = Dictionary(rustChunks.map { ($0.changeHash, $0.stored) }, uniquingKeysWith: { a, _ in a })
        #expect(Set(rebuilt.map(\.hash)) == Set(rustByHash.keys))
        #expect(rebuilt.count == rustChunks.count)
        for change in rebuilt {
            let rust = try #require(rustByHash[change.hash], "hash \(change.hash) not among Rust's changes")
            #expect(change.bytes == rust)
        }
    }

    @Test("changes rebuilt from the big documents reproduce their heads", arguments: SharedFiles.files(in: "docs", suffix: ".nocompress"))
    func reconstructionVerifiesHeads(_ url: URL) throws {
        let (_, document) = try Self.document(url)
        let rebuilt = try ChangeReconstruction.reconstruct(document)
        #expect(rebuilt.count == document.changes.count)
        let dependencies = try rebuilt.flatMap { try $0.storedChange().dependencies }
        #expect(Set(rebuilt.map(\.hash)).subtracting(dependencies).sorted() == document.heads.sorted())
    }
}

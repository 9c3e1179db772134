import Foundation
import Testing
import AutomergeTestSupport
@_spi(Conformance) @testable import Automerge

/// A first sync sends the whole document, so its bytes on the wire are
/// mostly one document chunk. Rust deflates that chunk's columns at level 6;
/// ours must come out no larger (``DeflateEffort/small``), on the real
/// documents Rust saved.
@Suite("Whole-document sync messages against Rust's saves", .enabled(if: SharedFiles.available, SharedFiles.skipMessage), .ownThread)
struct SyncWholeDocumentSizeTests {
    static var rustSaves: [URL] {
        SharedFiles.files(in: "docs", suffix: ".automerge") + SharedFiles.files(in: "oracle-gen", suffix: ".automerge")
    }

    @Test("the document chunk a first sync sends is no larger than the one Rust saved", arguments: rustSaves)
    func wholeDocumentNoLargerThanRust(_ url: URL) throws {
        let rustBytes = try SharedFiles.bytes(url)
        let rustChunk = try #require(try ChunkFraming.split(rustBytes).first)
        let source = try Document(Data(rustBytes))
        let empty = Document()
        let (stateSource, stateEmpty) = (SyncState(), SyncState())

        // The empty peer says it has nothing; the answer is the whole document.
        try source.receiveSyncMessage(state: stateSource, message: try #require(empty.generateSyncMessage(state: stateEmpty)))
        let message = try SyncMessage(bytes: try #require(source.generateSyncMessage(state: stateSource)))
        let sent = try #require(message.changes.first, "\(url.lastPathComponent): no whole document sent")
        #expect(message.changes.count == 1)
        #expect(sent.count <= rustChunk.stored.count,
                "\(url.lastPathComponent): \(sent.count) bytes sent, Rust's chunk has \(rustChunk.stored.count)")

        try empty.receiveSyncMessage(state: stateEmpty, message: message.encode())
        #expect(empty.heads() == source.heads())
    }
}

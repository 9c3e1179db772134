import Testing
@testable import AutomergeRepoProtocol

/// Document ids and `automerge:` URLs read and written as automerge-repo's
/// AutomergeUrl.ts does, on the vectors of its test/AutomergeUrl.test.ts and
/// test/Repo.test.ts (heads' base58check checked with an independent script).
@Suite("Document ids and automerge: URLs")
struct DocumentIdAndURLTests {
    /// automerge-repo's `goodDocumentId` and `goodBinaryDocumentId`.
    static let goodId = "4NMNnkMhL8jXrdJ9jamS58PAVdXu"
    static let goodBytes: [UInt8] = [241, 194, 156, 132, 116, 200, 74, 222, 184, 0, 190, 71, 98, 125, 51, 191]
    /// bs58check of [1, 2, 3, 4] and of [5, 6, 7, 8]: automerge-repo's `head1` and `head2`.
    static let head1 = "An6Ui6sE1F", head2 = "qjcTRo6yXG"

    @Test("a document id is base58check of its 16 bytes")
    func documentIdVector() throws {
        let id = try DocumentId(Self.goodId)
        #expect(id.bytes == Self.goodBytes)
        #expect(try DocumentId(bytes: Self.goodBytes).description == Self.goodId)
    }

    @Test("an id from automerge-repo's Repo tests reads")
    func repoTestId() throws {
        let url = try AutomergeURL("automerge:uKK1dJ4vE3E6r27kz5bsFaCykvM")
        #expect(hexString(url.documentId.bytes) == "40be80819d02412e86438caf9c14dd83")
        #expect(url.description == "automerge:uKK1dJ4vE3E6r27kz5bsFaCykvM")
    }

    @Test("ids that are not base58check, or not 16 bytes, are typed errors")
    func invalidIds() {
        #expect(throws: DocumentIdError.notBase58Check(.checksumMismatch)) { try DocumentId("badbadbad") }
        #expect(throws: DocumentIdError.notBase58Check(.invalidCharacter(offset: 4))) { try DocumentId("4NMN0") }
        #expect(throws: DocumentIdError.notBase58Check(.missingChecksum(length: 0))) { try DocumentId("") }
        // automerge-repo's `badUuidDocumentId` (8 bytes) and its "custom-id": JS takes any length, samod and we take 16.
        #expect(throws: DocumentIdError.wrongLength(byteCount: 8)) { try DocumentId("26ysEKpJvtSbiBL8") }
        #expect(throws: DocumentIdError.wrongLength(byteCount: 9)) { try DocumentId("9HUp4wuzRMx9MRvN4x") }
        #expect(throws: DocumentIdError.wrongLength(byteCount: 15)) { try DocumentId(bytes: Array(Self.goodBytes.dropLast())) }
    }

    @Test("random ids are version 4 UUIDs' bytes and read back from their text")
    func randomIds() throws {
        var seen: Set<DocumentId> = []
        for _ in 0..<100 {
            let id = DocumentId.random()
            #expect(id.bytes.count == 16 && id.bytes[6] >> 4 == 4 && id.bytes[8] >> 6 == 0b10)
            #expect(try DocumentId(id.description) == id)
            seen.insert(id)
        }
        #expect(seen.count == 100)
    }

    @Test("automerge:<id> reads and prints back")
    func plainURL() throws {
        let url = try AutomergeURL("automerge:" + Self.goodId)
        #expect(url.documentId.bytes == Self.goodBytes && url.heads == nil)
        #expect(url.description == "automerge:" + Self.goodId)
        #expect(AutomergeURL(documentId: try DocumentId(bytes: Self.goodBytes)).description == "automerge:" + Self.goodId)
    }

    @Test("heads are base58check joined by '|', written sorted, read in order")
    func urlWithHeads() throws {
        let text = "automerge:\(Self.goodId)#\(Self.head1)|\(Self.head2)"
        let url = try AutomergeURL(text)
        #expect(url.heads == [[1, 2, 3, 4], [5, 6, 7, 8]])
        #expect(url.description == text)
        let reversed = try AutomergeURL("automerge:\(Self.goodId)#\(Self.head2)|\(Self.head1)")
        #expect(reversed.heads == [[5, 6, 7, 8], [1, 2, 3, 4]])
        #expect(reversed.description == text, "equal sets of heads give equal URLs")
        #expect(try AutomergeURL("automerge:\(Self.goodId)#\(Self.head1)").heads == [[1, 2, 3, 4]])
    }

    @Test("a change hash's 32 bytes as a head")
    func changeHashHead() throws {
        // SHA-256("x") and its base58check, computed independently.
        let hash = hex("2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881")
        let url = AutomergeURL(documentId: try DocumentId(Self.goodId), heads: [hash])
        #expect(url.description == "automerge:\(Self.goodId)#M1kQepcCpyddcPZhNDMzXar6BMjBgEM9qgZ59NdvgFGnbNTsE")
        #expect(try AutomergeURL(url.description) == url)
    }

    @Test("a bare '#' is an empty list of heads, not none")
    func emptyHeads() throws {
        let url = try AutomergeURL("automerge:\(Self.goodId)#")
        #expect(url.heads == [])
        #expect(url.description == "automerge:\(Self.goodId)#")
        #expect(try AutomergeURL("automerge:\(Self.goodId)").heads == nil)
    }

    @Test("malformed URLs are typed errors, as automerge-repo rejects them")
    func malformedURLs() {
        let good = "automerge:" + Self.goodId
        #expect(throws: AutomergeURLError.missingPrefix) { try AutomergeURL("yjs\u{1F609}:" + Self.goodId) }
        #expect(throws: AutomergeURLError.missingPrefix) { try AutomergeURL(Self.goodId) }
        #expect(throws: AutomergeURLError.missingPrefix) { try AutomergeURL("Automerge:" + Self.goodId) }
        #expect(throws: AutomergeURLError.invalidDocumentId(.notBase58Check(.checksumMismatch))) {
            try AutomergeURL("automerge:badbadbad")
        }
        #expect(throws: AutomergeURLError.invalidHead(index: 0, .invalidCharacter(offset: 3))) {
            try AutomergeURL(good + "#not-base58-encoded")
        }
        #expect(throws: AutomergeURLError.invalidHead(index: 0, .invalidCharacter(offset: Self.head1.utf8.count))) {
            try AutomergeURL(good + "#\(Self.head1):")
        }
        #expect(throws: AutomergeURLError.invalidHead(index: 0, .missingChecksum(length: 0))) {
            try AutomergeURL(good + "#|\(Self.head1)")
        }
        #expect(throws: AutomergeURLError.invalidHead(index: 1, .checksumMismatch)) {
            try AutomergeURL(good + "#\(Self.head1)|\(Self.head2.dropLast())z")
        }
        #expect(throws: AutomergeURLError.multipleHeadsSections) { try AutomergeURL(good + "#\(Self.head1)#\(Self.head2)") }
        #expect(throws: AutomergeURLError.pathNotSupported) { try AutomergeURL(good + "/todos/@0") }
        #expect(throws: AutomergeURLError.invalidDocumentId(.notBase58Check(.missingChecksum(length: 0)))) {
            try AutomergeURL("automerge:")
        }
    }
}

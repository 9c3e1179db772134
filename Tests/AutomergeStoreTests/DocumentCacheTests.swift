@_spi(Storage) import Automerge
import Testing
@testable import AutomergeStore

/// The datastore's cache of loaded documents keeps the most recently used
/// within its memory bound, evicting the least recently used first.
@Suite("Document cache")
struct DocumentCacheTests {
    /// A document of about the same footprint as every other made here.
    func document(_ tag: Int) throws -> Document {
        let document = Document()
        for index in 0..<50 { try document.put(obj: .ROOT, key: "k\(index)", value: .Int(Int64(tag))) }
        return document
    }

    @Test("past the bound the least recently used go first; a read makes an entry recent")
    func leastRecentlyUsedFirst() throws {
        let cache = DocumentCache()
        let documents = try (0...4).map(document)
        let footprints = documents.map(\.approximateMemoryFootprint)
        #expect(footprints.max()! - footprints.min()! <= footprints.min()! / 10, "documents alike, estimates alike: \(footprints)")
        cache.byteLimit = footprints.max()! * 3
        for tag in 1...3 { cache.store(documents[tag], for: "d\(tag)", at: "r\(tag)") }
        #expect(cache.document("d1", at: "r1") != nil)  // d1 is now the most recent; d2 the least
        cache.store(documents[4], for: "d4", at: "r4")
        #expect(cache.document("d2", at: "r2") == nil)
        #expect(cache.document("d1", at: "r1") != nil)
        #expect(cache.document("d3", at: "r3") != nil)
        #expect(cache.document("d4", at: "r4") != nil)
        #expect(cache.usage.count == 3)
    }

    @Test("an entry is used only at its revision; restoring replaces it; evict and a lower bound drop entries")
    func revisionsAndEviction() throws {
        let cache = DocumentCache()
        cache.store(try document(1), for: "d", at: "1-a")
        #expect(cache.document("d", at: "2-b") == nil)
        cache.store(try document(2), for: "d", at: "2-b")
        #expect(cache.document("d", at: "1-a") == nil)
        #expect(cache.document("d", at: "2-b") != nil)
        #expect(cache.usage.count == 1)
        cache.store(try document(3), for: "e", at: "1-c")
        cache.evict("d")
        #expect(cache.usage.count == 1)
        cache.byteLimit = 0
        #expect(cache.usage == (0, 0))
        cache.store(try document(4), for: "f", at: "1-d")  // larger than the bound: not kept
        #expect(cache.usage.count == 0)
    }

    @Test("ten thousand entries cycle through a small bound, and the books balance")
    func manyEntries() throws {
        let cache = DocumentCache()
        let small = Document()
        try small.put(obj: .ROOT, key: "x", value: .Int(1))
        cache.byteLimit = small.approximateMemoryFootprint * 100
        for index in 0..<10_000 { cache.store(small, for: "d\(index)", at: "r") }
        #expect(cache.usage.count == 100)
        #expect(cache.document("d9999", at: "r") != nil && cache.document("d9899", at: "r") == nil)
        cache.evictAll()
        #expect(cache.usage == (0, 0))
    }
}

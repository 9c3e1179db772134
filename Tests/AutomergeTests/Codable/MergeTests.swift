import Foundation
import Testing
@testable import Automerge

@Suite("Codable: models edited on two peers")
struct CodableMergeTests {
    @Test func concurrentModelEditsMerge() throws {
        let doc = Document()
        let start = CodableTodoList(owner: "me", items: (0..<5).map { CodableItem(id: $0, title: "task \($0)", done: false) })
        try AutomergeEncoder(doc: doc).encode(start)
        let peer = doc.fork()

        var mine = try AutomergeDecoder(doc: doc).decode(CodableTodoList.self)
        mine.items[1].done = true
        mine.items.append(CodableItem(id: 5, title: "mine", done: false))
        try AutomergeEncoder(doc: doc).encode(mine)

        var theirs = try AutomergeDecoder(doc: peer).decode(CodableTodoList.self)
        theirs.items[3].title = "renamed by peer"
        theirs.items.remove(at: 0)
        theirs.owner = "us"
        try AutomergeEncoder(doc: peer).encode(theirs)

        try doc.merge(other: peer)
        try peer.merge(other: doc)
        var expected = start
        expected.owner = "us"
        expected.items[1].done = true
        expected.items[3].title = "renamed by peer"
        expected.items.remove(at: 0)
        expected.items.append(CodableItem(id: 5, title: "mine", done: false))
        #expect(try AutomergeDecoder(doc: doc).decode(CodableTodoList.self) == expected)
        #expect(try AutomergeDecoder(doc: peer).decode(CodableTodoList.self) == expected)
    }

    @Test func concurrentInsertsIntoTheSameListKeepBoth() throws {
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(CodableBox(value: ["a", "c"]))
        let peer = doc.fork()
        try AutomergeEncoder(doc: doc).encode(CodableBox(value: ["a", "b", "c"]))
        try AutomergeEncoder(doc: peer).encode(CodableBox(value: ["a", "c", "d"]))
        try doc.merge(other: peer)
        #expect(try AutomergeDecoder(doc: doc).decode(CodableBox<[String]>.self).value == ["a", "b", "c", "d"])
    }

    @Test func remoteSchemaChangesSurfaceAsTypedErrors() throws {
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(CodableTodoList(owner: "me", items: []))
        let peer = doc.fork()
        try peer.put(obj: .ROOT, key: "items", value: .String("oops"))
        try doc.merge(other: peer)
        #expect(throws: DecodingError.self) { try AutomergeDecoder(doc: doc).decode(CodableTodoList.self) }
        #expect(throws: CodingKeyLookupError.self) { try AutomergeEncoder(doc: doc).encode(CodableTodoList(owner: "me", items: [])) }
    }
}

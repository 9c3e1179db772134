import Foundation
import Testing
@testable import Automerge

/// A document with one of everything, some edits committed and some pending.
private func fixture() throws -> (doc: Document, map: ObjId, list: ObjId, text: ObjId) {
    let doc = Document.peer(0x01)
    let map = try doc.putObject(obj: .ROOT, key: "map", ty: .Map)
    let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
    let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
    try doc.put(obj: map, key: "k", value: .String("v"))
    try doc.splice(obj: list, start: 0, delete: 0, values: [.Int(1), .Int(2), .Int(3)])
    try doc.spliceText(obj: text, start: 0, delete: 0, value: "hello")
    doc.commitChange()
    try doc.put(obj: .ROOT, key: "pending", value: .Boolean(true))
    return (doc, map, list, text)
}

/// Runs `body`, expects it to throw an `AutomergeError` that `matches`, and
/// expects the document to be exactly as before.
private func expectRejected(
    _ doc: Document, _ what: Comment,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void, _ matches: (AutomergeError) -> Bool
) {
    let before = Snapshot(doc)
    let error = #expect(throws: AutomergeError.self, what, sourceLocation: sourceLocation) { try body() }
    if let error { #expect(matches(error), "\(what): unexpected \(error)", sourceLocation: sourceLocation) }
    #expect(Snapshot(doc) == before, "\(what) changed the document", sourceLocation: sourceLocation)
}

private func isWrongType(_ obj: ObjId, _ type: ObjType) -> (AutomergeError) -> Bool {
    { error in
        if case .wrongObjectType(let o, let t, _) = error { return o == obj && t == type }
        return false
    }
}

@Suite("Errors")
struct ErrorTests {

    @Test func indicesOutOfRangeThrowIndexOutOfBoundsAndChangeNothing() throws {
        let (doc, _, list, text) = try fixture()
        let listLength: (UInt64) -> (AutomergeError) -> Bool = { index in { $0 == .indexOutOfBounds(index: index, length: 3) } }
        let textLength: (UInt64) -> (AutomergeError) -> Bool = { index in { $0 == .indexOutOfBounds(index: index, length: 5) } }
        expectRejected(doc, "insert past the end", { try doc.insert(obj: list, index: 4, value: .Null) }, listLength(4))
        expectRejected(doc, "insertObject past the end", { _ = try doc.insertObject(obj: list, index: 4, ty: .Map) }, listLength(4))
        expectRejected(doc, "put at the length", { try doc.put(obj: list, index: 3, value: .Null) }, listLength(3))
        expectRejected(doc, "putObject at the length", { _ = try doc.putObject(obj: list, index: 3, ty: .List) }, listLength(3))
        expectRejected(doc, "delete at the length", { try doc.delete(obj: list, index: 3) }, listLength(3))
        expectRejected(doc, "increment past the end", { try doc.increment(obj: list, index: 9, by: 1) }, listLength(9))
        expectRejected(doc, "splice starting past the end", { try doc.splice(obj: list, start: 4, delete: 0, values: [.Null]) }, listLength(4))
        expectRejected(doc, "spliceText starting past the end", { try doc.spliceText(obj: text, start: 6, delete: 0, value: "x") }, textLength(6))
        expectRejected(doc, "negative delete past the start", { try doc.spliceText(obj: text, start: 1, delete: -2, value: "x") }, textLength(1))
        expectRejected(doc, "mark ending past the end", { try doc.mark(obj: text, start: 0, end: 6, expand: .none, name: "b", value: .Null) }, textLength(6))
        expectRejected(doc, "mark starting past the end", { try doc.mark(obj: text, start: 6, end: 2, expand: .after, name: "b", value: .Null) }, textLength(6))
        expectRejected(doc, "cursor past the end", { _ = try doc.cursor(obj: text, position: 6) }, textLength(6))
    }

    @Test func readsPastTheEndReturnNil() throws {
        let (doc, _, list, text) = try fixture()
        #expect(try doc.get(obj: list, index: 3) == nil)
        #expect(try doc.getAll(obj: list, index: 100).isEmpty)
        #expect(try doc.get(obj: text, index: UInt64.max) == nil)
    }

    @Test func operationsOnTheWrongObjectTypeThrowWrongObjectTypeAndChangeNothing() throws {
        let (doc, map, list, text) = try fixture()
        expectRejected(doc, "put by key on a list", { try doc.put(obj: list, key: "k", value: .Null) }, isWrongType(list, .List))
        expectRejected(doc, "putObject by key on text", { _ = try doc.putObject(obj: text, key: "k", ty: .Map) }, isWrongType(text, .Text))
        expectRejected(doc, "delete by key on a list", { try doc.delete(obj: list, key: "k") }, isWrongType(list, .List))
        expectRejected(doc, "increment by key on a list", { try doc.increment(obj: list, key: "k", by: 1) }, isWrongType(list, .List))
        expectRejected(doc, "get by key on a list", { _ = try doc.get(obj: list, key: "k") }, isWrongType(list, .List))
        expectRejected(doc, "insert into a map", { try doc.insert(obj: map, index: 0, value: .Null) }, isWrongType(map, .Map))
        expectRejected(doc, "insert into the root", { try doc.insert(obj: .ROOT, index: 0, value: .Null) }, isWrongType(.ROOT, .Map))
        expectRejected(doc, "put by index on a map", { try doc.put(obj: map, index: 0, value: .Null) }, isWrongType(map, .Map))
        expectRejected(doc, "putObject by index into text", { _ = try doc.putObject(obj: text, index: 0, ty: .Map) }, isWrongType(text, .Text))
        expectRejected(doc, "delete by index on a map", { try doc.delete(obj: map, index: 0) }, isWrongType(map, .Map))
        expectRejected(doc, "splice on a map", { try doc.splice(obj: map, start: 0, delete: 0, values: [.Null]) }, isWrongType(map, .Map))
        expectRejected(doc, "get by index on a map", { _ = try doc.get(obj: map, index: 0) }, isWrongType(map, .Map))
        expectRejected(doc, "spliceText on a list", { try doc.spliceText(obj: list, start: 0, delete: 0, value: "x") }, isWrongType(list, .List))
        expectRejected(doc, "spliceText on a map", { try doc.spliceText(obj: map, start: 0, delete: 0, value: "x") }, isWrongType(map, .Map))
        expectRejected(doc, "updateText on a list", { try doc.updateText(obj: list, value: "x") }, isWrongType(list, .List))
        expectRejected(doc, "text of a list", { _ = try doc.text(obj: list) }, isWrongType(list, .List))
        expectRejected(doc, "mark on a list", { try doc.mark(obj: list, start: 0, end: 1, expand: .none, name: "b", value: .Null) }, isWrongType(list, .List))
        expectRejected(doc, "marks of a map", { _ = try doc.marks(obj: map) }, isWrongType(map, .Map))
        expectRejected(doc, "mapEntries of a list", { _ = try doc.mapEntries(obj: list) }, isWrongType(list, .List))
        expectRejected(doc, "cursor in a map", { _ = try doc.cursor(obj: map, position: 0) }, isWrongType(map, .Map))
    }

    @Test func unknownObjectIdsThrowUnknownObjectAndChangeNothing() throws {
        let (doc, _, _, _) = try fixture()
        // An object of another document, and an id whose actor this document never saw.
        let other = Document.peer(0x09)
        let foreign = try other.putObject(obj: .ROOT, key: "x", ty: .List)
        let unseen = try #require(ObjId("1@abcdef"))
        let notAnObject = try #require(ObjId("5@01"))  // op 5@01 is a string set, not a make op
        for obj in [foreign, unseen, notAnObject] {
            let isUnknown: (AutomergeError) -> Bool = { $0 == .unknownObject(obj) }
            expectRejected(doc, "put into \(obj)", { try doc.put(obj: obj, key: "k", value: .Null) }, isUnknown)
            expectRejected(doc, "insert into \(obj)", { try doc.insert(obj: obj, index: 0, value: .Null) }, isUnknown)
            expectRejected(doc, "spliceText into \(obj)", { try doc.spliceText(obj: obj, start: 0, delete: 0, value: "x") }, isUnknown)
            expectRejected(doc, "get from \(obj)", { _ = try doc.get(obj: obj, key: "k") }, isUnknown)
            expectRejected(doc, "text of \(obj)", { _ = try doc.text(obj: obj) }, isUnknown)
            expectRejected(doc, "objectType of \(obj)", { _ = try doc.checkedObjectType(obj: obj) }, isUnknown)
            #expect(doc.keys(obj: obj) == [])
            #expect(doc.length(obj: obj) == 0)
        }
    }

    @Test func incrementOfANonCounterThrowsNotACounterAndChangesNothing() throws {
        let (doc, map, list, _) = try fixture()
        expectRejected(doc, "increment a string", { try doc.increment(obj: map, key: "k", by: 1) }, { $0 == .notACounter(map, .Key("k")) })
        expectRejected(doc, "increment a missing key", { try doc.increment(obj: map, key: "nope", by: 1) }, { $0 == .notACounter(map, .Key("nope")) })
        expectRejected(doc, "increment an int in a list", { try doc.increment(obj: list, index: 1, by: 1) }, { $0 == .notACounter(list, .Index(1)) })
    }

    @Test func unknownHeadsThrowUnknownHeadsAndChangeNothing() throws {
        let (doc, _, list, text) = try fixture()
        let unknown = try #require(ChangeHash(hexString: String(repeating: "ab", count: 32)))
        let isUnknownHeads: (AutomergeError) -> Bool = { $0 == .unknownHeads([unknown]) }
        expectRejected(doc, "getAt", { _ = try doc.getAt(obj: .ROOT, key: "map", heads: [unknown]) }, isUnknownHeads)
        expectRejected(doc, "getAllAt", { _ = try doc.getAllAt(obj: list, index: 0, heads: [unknown]) }, isUnknownHeads)
        expectRejected(doc, "textAt", { _ = try doc.textAt(obj: text, heads: [unknown]) }, isUnknownHeads)
        expectRejected(doc, "valuesAt", { _ = try doc.valuesAt(obj: list, heads: [unknown]) }, isUnknownHeads)
        expectRejected(doc, "mapEntriesAt", { _ = try doc.mapEntriesAt(obj: .ROOT, heads: [unknown]) }, isUnknownHeads)
        expectRejected(doc, "position at heads", { _ = try doc.position(obj: text, cursor: Cursor(anchor: .end), heads: [unknown]) }, isUnknownHeads)
    }

    @Test func aFailedCallInsideATransactionKeepsTheEarlierPendingEdits() throws {
        let (doc, _, list, text) = try fixture()
        try doc.spliceText(obj: text, start: 5, delete: 0, value: " world")
        let pending = doc.pendingOps
        #expect(pending.count == 7)
        #expect(throws: AutomergeError.self) { try doc.insert(obj: list, index: 99, value: .Null) }
        #expect(throws: AutomergeError.self) { try doc.spliceText(obj: list, start: 0, delete: 0, value: "x") }
        #expect(doc.pendingOps == pending)
        doc.commitChange()
        #expect(try doc.text(obj: text) == "hello world")
        #expect(try doc.get(obj: .ROOT, key: "pending") == .Scalar(.Boolean(true)))
    }

    @Test func errorsDescribeThemselves() {
        #expect(AutomergeError.indexOutOfBounds(index: 4, length: 3).description == "index 4 is out of bounds (length 3)")
        #expect(AutomergeError.unknownObject(ObjId("1@01")!).description.contains("1@01"))
    }
}

import Foundation
import Testing
@testable import Automerge

@Suite("Codable: re-encoding writes only what changed")
struct CodableMinimalWriteTests {
    private func bigList(_ count: Int) -> CodableTodoList {
        CodableTodoList(owner: "me", items: (0..<count).map { CodableItem(id: $0, title: "task \($0)", done: $0.isMultiple(of: 2)) })
    }

    @Test func reEncodingAnUnchanged10000ElementModelMakesNoOps() throws {
        let doc = Document()
        let model = bigList(10_000)
        try AutomergeEncoder(doc: doc).encode(model)
        let heads = doc.heads()
        try AutomergeEncoder(doc: doc).encode(model)
        #expect(codablePendingOps(doc) == 0)
        #expect(doc.heads() == heads)
        let scalars = CodableBox(value: Array(0..<10_000))
        try AutomergeEncoder(doc: doc).encode(scalars)
        #expect(try codableOpsToEncode(scalars, into: doc) == 0)
    }

    @Test func oneChangedElementCostsOneOp() throws {
        let doc = Document()
        var model = bigList(1_000)
        try AutomergeEncoder(doc: doc).encode(model)
        model.items[500].done.toggle()
        #expect(try codableOpsToEncode(model, into: doc) == 1)
        model.items[0].title = "first"
        model.items[999].title = "last"
        #expect(try codableOpsToEncode(model, into: doc) == 2)
        #expect(try AutomergeDecoder(doc: doc).decode(CodableTodoList.self) == model)
    }

    @Test func insertingOrRemovingAnElementCostsOnlyThatElement() throws {
        let doc = Document()
        var model = bigList(1_000)
        try AutomergeEncoder(doc: doc).encode(model)
        // An inserted struct: one insert of the map plus one op per field.
        model.items.insert(CodableItem(id: -1, title: "new", done: false), at: 300)
        #expect(try codableOpsToEncode(model, into: doc) == 4)
        model.items.remove(at: 700)
        #expect(try codableOpsToEncode(model, into: doc) == 1)
        model.items.insert(CodableItem(id: -2, title: "front", done: true), at: 0)
        model.items.append(CodableItem(id: -3, title: "back", done: true))
        #expect(try codableOpsToEncode(model, into: doc) == 8)
        // A move: one delete and one re-insert.
        let moved = model.items.remove(at: 10)
        model.items.insert(moved, at: 900)
        #expect(try codableOpsToEncode(model, into: doc) == 5)
        // An insert and an edit at once.
        model.items.insert(CodableItem(id: -4, title: "x", done: false), at: 5)
        model.items[600].title = "edited"
        #expect(try codableOpsToEncode(model, into: doc) == 5)
        #expect(try AutomergeDecoder(doc: doc).decode(CodableTodoList.self) == model)
    }

    @Test func scalarListsUseAMinimalDiff() throws {
        let doc = Document()
        var model = CodableBox(value: Array(0..<2_000).map { "line \($0)" })
        try AutomergeEncoder(doc: doc).encode(model)
        guard case .Object(let list, .List)? = try doc.get(obj: .ROOT, key: "value") else { return }
        model.value.insert("inserted", at: 1_000)
        model.value.remove(at: 10)
        model.value[1_500] = "replaced"
        #expect(try codableOpsToEncode(model, into: doc) == 3)
        #expect(try doc.get(obj: .ROOT, key: "value") == .Object(list, .List))
        #expect(try AutomergeDecoder(doc: doc).decode(CodableBox<[String]>.self) == model)
    }

    @Test func wholesaleRewritesStayCorrect() throws {
        let doc = Document()
        let original = CodableBox(value: Array(0..<1_500))
        try AutomergeEncoder(doc: doc).encode(original)
        let reversed = CodableBox(value: Array((0..<1_500).reversed()))
        try AutomergeEncoder(doc: doc).encode(reversed)
        #expect(try AutomergeDecoder(doc: doc).decode(CodableBox<[Int]>.self) == reversed)
        let shorter = CodableBox(value: (0..<700).map { $0 * 3 })
        try AutomergeEncoder(doc: doc).encode(shorter)
        #expect(try AutomergeDecoder(doc: doc).decode(CodableBox<[Int]>.self) == shorter)
    }

    @Test func unchangedDictionariesAndNestedValuesMakeNoOps() throws {
        let doc = Document()
        var model = CodableBox(value: Dictionary(uniqueKeysWithValues: (0..<500).map { ("key\($0)", [Double($0), 0.5]) }))
        try AutomergeEncoder(doc: doc).encode(model)
        #expect(try codableOpsToEncode(model, into: doc) == 0)
        model.value["key7"] = nil
        model.value["key8"]![1] = 2
        #expect(try codableOpsToEncode(model, into: doc) == 2)
        let drawing = CodableDrawing(shapes: [.circle(radius: 1), .point, .labelled("a", 1)], primary: .point, optionalShape: .rectangle(width: 1, height: 2))
        try AutomergeEncoder(doc: doc).encode(drawing)
        #expect(try codableOpsToEncode(drawing, into: doc) == 0)
        let precise = CodableBox(value: Date(timeIntervalSince1970: 1_000.123456))
        try AutomergeEncoder(doc: doc).encode(precise)
        #expect(try codableOpsToEncode(precise, into: doc) == 0)
        let nan = CodableBox(value: Double.nan)
        try AutomergeEncoder(doc: doc).encode(nan)
        #expect(try codableOpsToEncode(nan, into: doc) == 0)
    }
}

import Automerge
import Foundation
import PropertyBased
import Testing
import AutomergeTestSupport

/// Edits addressed by index into sequences long enough to span many leaves
/// of the sequence tree (at most 64 elements a leaf): every index reads and
/// writes the element an array holds there. A release build once answered a
/// put at an in-bounds index with a garbage element and crashed, which debug
/// builds never showed (scripts/miscompile-repro), so CI runs this suite in
/// release mode too.
@Suite("Edits at an index across leaves", .ownThread)
struct LongSequenceIndexTests {
    /// A list of `count` values, as an app builds one: the first half
    /// appended (full leaves), the second inserted at the middle (leaves
    /// split in halves), so that leaf boundaries fall at uneven indices.
    /// Every fifth value is a counter, for increments.
    private static func longList(count: Int) throws -> (Document, ObjId, [ScalarValue]) {
        let doc = Document()
        doc.actor = ActorId(hexString: "aa")!
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        var model: [ScalarValue] = []
        for n in 0..<count {
            let value: ScalarValue = n % 5 == 0 ? .Counter(Int64(n)) : .Int(Int64(n))
            let at = n < count / 2 ? model.count : model.count / 2
            try doc.insert(obj: list, index: UInt64(at), value: value)
            model.insert(value, at: at)
        }
        doc.commitWith()
        return (doc, list, model)
    }

    private static func scalars(_ doc: Document, _ list: ObjId) throws -> [ScalarValue?] {
        try doc.values(obj: list).map { value in
            guard case .Scalar(let scalar) = value else { return nil }
            return scalar
        }
    }

    @Test("put, increment and delete at every index of a 300-element list act on the element an array holds there")
    func everyIndex() throws {
        let (doc, list, original) = try Self.longList(count: 300)
        var model = original
        #expect(try Self.scalars(doc, list) == model)

        for index in model.indices {
            if case .Counter(let n) = model[index] {
                try doc.increment(obj: list, index: UInt64(index), by: 3)
                model[index] = .Counter(n + 3)
            } else {
                try doc.put(obj: list, index: UInt64(index), value: .Int(Int64(index) * 10))
                model[index] = .Int(Int64(index) * 10)
            }
            #expect(try doc.get(obj: list, index: UInt64(index)) == .Scalar(model[index]), "at \(index)")
        }
        #expect(try Self.scalars(doc, list) == model)

        // Every seventh index from the end, so that deletes fall on both sides of each leaf boundary.
        for index in stride(from: model.count - 1, through: 0, by: -7) {
            try doc.delete(obj: list, index: UInt64(index))
            model.remove(at: index)
            if index < model.count {
                #expect(try doc.get(obj: list, index: UInt64(index)) == .Scalar(model[index]), "after deleting \(index)")
            }
        }
        #expect(doc.length(obj: list) == UInt64(model.count))
        #expect(try Self.scalars(doc, list) == model)
        #expect(try Self.scalars(Document(doc.save()), list) == model)
    }

    @Test("an index one past the end is refused and changes nothing")
    func pastTheEnd() throws {
        let (doc, list, model) = try Self.longList(count: 200)
        let past = UInt64(model.count)
        #expect(throws: AutomergeError.self) { try doc.put(obj: list, index: past, value: .Int(1)) }
        #expect(throws: AutomergeError.self) { try doc.increment(obj: list, index: past, by: 1) }
        #expect(throws: AutomergeError.self) { try doc.delete(obj: list, index: past) }
        #expect(try Self.scalars(doc, list) == model)
    }

    /// (operation, position, value): insert, delete, put, increment or splice.
    static let listEdits = zip(Gen.int(in: 0...4), Gen.int(in: 0...511), Gen.int(in: 0...99)).array(of: 1...40)

    @Test("random edits anywhere in a 200-element list match an array")
    func randomListEdits() async {
        await propertyCheck(count: 100, input: Self.listEdits) { edits in
            let (doc, list, original) = try Self.longList(count: 200)
            var model = original
            for (step, (operation, position, number)) in edits.enumerated() {
                let value = ScalarValue.Int(Int64(number))
                let at = position % model.count
                switch operation {
                case 0:
                    let at = position % (model.count + 1)
                    try doc.insert(obj: list, index: UInt64(at), value: value)
                    model.insert(value, at: at)
                case 1:
                    try doc.delete(obj: list, index: UInt64(at))
                    model.remove(at: at)
                case 2:
                    try doc.put(obj: list, index: UInt64(at), value: value)
                    model[at] = value
                case 3:
                    if case .Counter(let n) = model[at] {
                        try doc.increment(obj: list, index: UInt64(at), by: Int64(number))
                        model[at] = .Counter(n + Int64(number))
                    } else {
                        try doc.put(obj: list, index: UInt64(at), value: .Counter(Int64(number)))
                        model[at] = .Counter(Int64(number))
                    }
                default:
                    let delete = min(number % 4, model.count - at)
                    try doc.splice(obj: list, start: UInt64(at), delete: Int64(delete), values: [value, .Null])
                    model.replaceSubrange(at..<at + delete, with: [value, .Null])
                }
                if step % 8 == 7 { doc.commitWith() }
            }
            let values = try Self.scalars(doc, list)
            #expect(values == model)
            if values != model { return }
            #expect(try Self.scalars(Document(doc.save()), list) == model)
        }
    }

    /// (position, units deleted, snippet index).
    static let textEdits = zip(Gen.int(in: 0...511), Gen.int(in: 0...3), Gen.int(in: 0...19)).array(of: 1...30)

    @Test("random splices anywhere in a 300-character text match a string of Unicode scalars")
    func randomTextSplices() async {
        await propertyCheck(count: 100, input: Self.textEdits) { edits in
            let doc = Document()
            doc.actor = ActorId(hexString: "aa")!
            let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
            let start = String(repeating: "abcdefghij", count: 30)
            try doc.spliceText(obj: text, start: 0, delete: 0, value: start)
            var model = Array(start.unicodeScalars)
            let snippets = ["", "x", "yz", "é", "👍🏽", "\n", "日本"]
            for (step, (position, delete, snippet)) in edits.enumerated() {
                let at = position % (model.count + 1)
                let count = min(delete, model.count - at)
                let insert = snippets[snippet % snippets.count]
                try doc.spliceText(obj: text, start: UInt64(at), delete: Int64(count), value: insert)
                model.replaceSubrange(at..<at + count, with: insert.unicodeScalars)
                let actual = Array(try doc.text(obj: text).unicodeScalars)
                #expect(actual == model, "after splice \(step)")
                if actual != model { return }
            }
        }
    }
}

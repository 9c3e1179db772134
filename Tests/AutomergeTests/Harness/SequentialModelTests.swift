import Automerge
import AutomergeConformance
import Foundation
import PropertyBased
import Testing
import AutomergeTestSupport

extension Harness {
    /// One peer's list and text edits behave like an array and a string: the
    /// sequential specification every convergent result must also satisfy.
    @Suite("Harness: sequential model", .ownThread)
    struct SequentialModelTests {
        /// (operation, position, count, value): insert, delete, put or splice.
        static let listEdits = zip(Gen.int(in: 0...3), Gen.int(in: 0...31), Gen.int(in: 0...3), Gen.int(in: 0...99)).array(of: 1...30)

        @Test("list edits match an array model")
        func listMatchesArray() async {
            await propertyCheck(count: 250, input: Self.listEdits) { edits in
                let doc = Document()
                doc.actor = ActorId(hexString: "aa")!
                let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
                var model: [Int64] = []
                for (index, (op, position, count, value)) in edits.enumerated() {
                    let v = Int64(value)
                    if op == 0 || model.isEmpty {
                        let at = position % (model.count + 1)
                        try doc.insert(obj: list, index: UInt64(at), value: .Int(v))
                        model.insert(v, at: at)
                    } else if op == 1 {
                        let at = position % model.count
                        try doc.delete(obj: list, index: UInt64(at))
                        model.remove(at: at)
                    } else if op == 2 {
                        let at = position % model.count
                        try doc.put(obj: list, index: UInt64(at), value: .Int(v))
                        model[at] = v
                    } else {
                        let at = position % (model.count + 1)
                        let delete = min(count, model.count - at)
                        try doc.splice(obj: list, start: UInt64(at), delete: Int64(delete), values: [.Int(v), .Int(v + 1)])
                        model.replaceSubrange(at..<at + delete, with: [v, v + 1])
                    }
                    if index % 4 == 3 { doc.commitWith() }
                    let values = try doc.values(obj: list).map { value -> Int64 in
                        if case .Scalar(.Int(let n)) = value { return n }
                        return -1
                    }
                    #expect(values == model, "after edit \(index)")
                    if values != model { return }
                }
                let loaded = try Document(doc.save())
                #expect(try loaded.values(obj: list).count == model.count)
            }
        }

        /// (position, delete, snippet index).
        static let textEdits = zip(Gen.int(in: 0...31), Gen.int(in: 0...3), Gen.int(in: 0...19)).array(of: 1...25)

        @Test("text splices match a string of Unicode scalars")
        func textMatchesString() async {
            await propertyCheck(count: 250, input: Self.textEdits) { edits in
                let doc = Document()
                doc.actor = ActorId(hexString: "aa")!
                let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
                var model: [Unicode.Scalar] = []
                for (index, (position, delete, snippet)) in edits.enumerated() {
                    let at = position % (model.count + 1)
                    let count = min(delete, model.count - at)
                    let insert = RandomEdits.snippets[snippet % RandomEdits.snippets.count]
                    try doc.spliceText(obj: text, start: UInt64(at), delete: Int64(count), value: insert)
                    model.replaceSubrange(at..<at + count, with: insert.unicodeScalars)
                    var expected = String.UnicodeScalarView()
                    expected.append(contentsOf: model)
                    let actual = try doc.text(obj: text)
                    #expect(Array(actual.unicodeScalars) == model, "after splice \(index): \(actual.debugDescription) vs \(String(expected).debugDescription)")
                    if Array(actual.unicodeScalars) != model { return }
                }
            }
        }
    }
}

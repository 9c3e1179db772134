import Automerge
import Foundation
import Testing
@testable import AutomergeUtilities

/// What automerge-swift 0.6.1 does with the members added for source
/// compatibility, read from its sources, checked here.
@Suite("automerge-swift 0.6.1 behaviour")
struct BehaviourTests {
    static func hash(first byte: UInt8) -> ChangeHash {
        ChangeHash(data: Data([byte] + [UInt8](repeating: 7, count: 31)))!
    }

    /// 0.6.1 orders the hashes by the text of their byte arrays, greatest
    /// first: "[9, ..." comes before "[10, ...", unlike byte order.
    @Test func rawHeadsLayout() throws {
        let nine = Self.hash(first: 9), ten = Self.hash(first: 10), two = Self.hash(first: 200)
        let raw = Set([ten, nine, two]).raw()
        #expect(raw == nine.data + two.data + ten.data)
        #expect(raw.heads() == [nine, ten, two])
        #expect(Set<ChangeHash>().raw().isEmpty)
        #expect(Data().heads() == [])
        #expect(Data(count: 33).heads() == nil)
        let doc = Document()
        try doc.put(obj: .ROOT, key: "a", value: .Int(1))
        #expect(doc.heads().raw().heads() == doc.heads())
    }

    @Test func walkPrintsEachValueWithItsType() throws {
        let doc = Document()
        try doc.put(obj: .ROOT, key: "a", value: .Int(1))
        _ = try doc.putObject(obj: .ROOT, key: "e", ty: .List)
        let list = try doc.putObject(obj: .ROOT, key: "l", ty: .List)
        try doc.insert(obj: list, index: 0, value: .String("x"))
        _ = try doc.insertObject(obj: list, index: 1, ty: .Map)
        let text = try doc.putObject(obj: .ROOT, key: "t", ty: .Text)
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "hi")
        let expected = """
        {
          {
          "a" :Int(1)
          "e" : {
            []
          }
          "l" : {
            [
              String(x)
              {
              }
            ]
          }
          "t" : {
            Text["hi"]
          }
          }
        }

        """
        #expect(try doc.walkDescription() == expected)
        try doc.walk()
    }

    @Test func equivalentContentsComparesCurrentValuesOnly() throws {
        let a = Document(), b = Document()
        try a.put(obj: .ROOT, key: "k", value: .Int(1))
        try a.put(obj: .ROOT, key: "k", value: .Int(2))
        try b.put(obj: .ROOT, key: "k", value: .Int(2))
        #expect(a.equivalentContents(b))  // other histories and actors, same contents

        let text = try a.putObject(obj: .ROOT, key: "s", ty: .Text)
        try a.spliceText(obj: text, start: 0, delete: 0, value: "x")
        try b.put(obj: .ROOT, key: "s", value: .String("x"))
        #expect(!a.equivalentContents(b))  // text is not a string scalar
        #expect(try a.schema() == .dict(["k": .scalar(.Int(2)), "s": .text("x")]))
        #expect(try a.schema().description.contains("T{x}"))
        #expect(try Document().isEmpty())
        #expect(throws: AutomergeError.self) { try a.parseToSchema(a, from: b.putObject(obj: .ROOT, key: "m", ty: .Map)) }
    }

    @Test func commitTimes() throws {
        let doc = Document()
        try doc.put(obj: .ROOT, key: "a", value: .Int(1))
        doc.commitWith(message: "now")
        try doc.put(obj: .ROOT, key: "a", value: .Int(2))
        doc.commitWith(timestamp: Date(timeIntervalSince1970: 1_700_000_000.25))
        try doc.put(obj: .ROOT, key: "a", value: .Int(3))
        let times = doc.getHistory().map { doc.change(hash: $0)!.timestamp }
        #expect(abs(times[0].timeIntervalSinceNow) < 600)
        #expect(times[1] == Date(timeIntervalSince1970: 1_700_000_000.25))  // milliseconds kept
        #expect(times[2] == Date(timeIntervalSince1970: 0))  // committed implicitly by getHistory
    }

    @Test func differenceToMovesFromTheCurrentState() throws {
        let doc = Document()
        try doc.put(obj: .ROOT, key: "a", value: .Int(1))
        let first = doc.heads()
        try doc.put(obj: .ROOT, key: "b", value: .Int(2))
        #expect(doc.difference(to: first) == [Patch(action: .DeleteMap(.ROOT, "b"), path: [])])
        #expect(doc.difference(to: doc.heads()).isEmpty)
    }

    @Test func lookupPathFollowsTheSchema() throws {
        let doc = Document()
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        let map = try doc.insertObject(obj: list, index: 0, ty: .Map)
        try doc.put(obj: .ROOT, key: "n", value: .Int(1))
        #expect(try doc.lookupPath(path: "") == .ROOT)
        #expect(try doc.lookupPath(path: ".list.[0]") == map)
        #expect(try doc.lookupPath(path: "list") == list)
        #expect(try doc.lookupPath(path: ".list.[1]") == nil)  // one past the end
        #expect(try doc.lookupPath(path: ".n") == nil)  // a scalar
        #expect(try doc.lookupPath(path: ".missing") == nil)
        #expect(throws: CodingKeyLookupError.self) { try doc.lookupPath(path: ".list.[2]") }
        #expect(throws: CodingKeyLookupError.self) { try doc.lookupPath(path: ".[1]") }  // an index on the root map
        #expect(throws: CodingKeyLookupError.self) { try doc.lookupPath(path: ".list.key") }
        #expect(throws: CodingKeyLookupError.self) { try doc.lookupPath(path: ".missing.x") }
        #expect(throws: CodingKeyLookupError.self) { try doc.lookupPath(path: ".n.x") }
        #expect(throws: PathParseError.InvalidPathElement("1")) { try doc.lookupPath(path: ".list.1") }
        #expect(throws: PathParseError.InvalidPathElement("/list")) { try doc.lookupPath(path: "/list") }
    }

    @Test func textOnlyReplacesTextOrNothing() throws {
        struct Titles: Codable { var items: [AutomergeText] }
        struct Strings: Codable { var items: [String] }
        struct Titled: Codable { var title: AutomergeText }
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(Strings(items: ["a", "b"]))
        #expect(throws: CodingKeyLookupError.self) { try AutomergeEncoder(doc: doc).encode(Titles(items: [AutomergeText("a")])) }
        #expect(try AutomergeDecoder(doc: doc).decode(Strings.self).items == ["a", "b"])  // nothing written
        try AutomergeEncoder(doc: doc, strategy: .override).encode(Titles(items: [AutomergeText("a")]))
        #expect(try AutomergeDecoder(doc: doc).decode(Titles.self).items.map(\.value) == ["a"])

        try doc.put(obj: .ROOT, key: "title", value: .String("plain"))
        #expect(throws: CodingKeyLookupError.self) { try AutomergeEncoder(doc: doc).encode(Titled(title: AutomergeText("t")), at: []) }
    }

    @Test func textAtTheRootGoesUnderValue() throws {
        let doc = Document()
        let text = AutomergeText("hello")
        try AutomergeEncoder(doc: doc).encode(text)
        let id = try #require(try doc.lookupPath(path: ".value"))
        #expect(try doc.text(obj: id) == "hello" && text.isBound)
        let decoded = try AutomergeDecoder(doc: doc).decode(AutomergeText.self)
        #expect(decoded.value == "hello" && decoded.isBound)
        decoded.value = "hello!"
        #expect(text.value == "hello!")
        #expect(throws: BindingError.self) { try AutomergeText("x", doc: doc, path: "") }
    }

    @Test func objectTypeNeverThrows() throws {
        let doc = Document()
        let other = Document()
        let list = try other.putObject(obj: .ROOT, key: "l", ty: .List)
        #expect(doc.objectType(obj: .ROOT) == .Map)
        #expect(doc.objectType(obj: list) == .Map)  // not an object of doc: reads as an empty map
        #expect(throws: AutomergeError.unknownObject(list)) { try doc.checkedObjectType(obj: list) }
        #expect(other.objectType(obj: list) == .List)
    }

    @Test func descriptions() throws {
        #expect(ScalarValue.String("s").description == "String(s)")
        #expect(ScalarValue.Uint(3).description == "UInt(3)")
        #expect(ScalarValue.Int(-3).description == "Int(-3)")
        #expect(ScalarValue.F64(1.25).description == "Double(1.25)")
        #expect(ScalarValue.Counter(2).description == "Counter(2)")
        #expect(ScalarValue.Boolean(false).description == "Boolean(false)")
        #expect(ScalarValue.Null.description == "Null()")
        #expect(ScalarValue.Bytes(Data([0, 255])).description == "Data(00ff)")
        #expect(ScalarValue.Bytes(Data(0..<17)).description == "Data(000102030405060708090a0b0c0d0e)")
        #expect(ScalarValue.Unknown(typeCode: 12, data: Data([1])).description == "Unknown(type: 12, data: 01)")
        #expect(ObjId.ROOT.debugDescription == "ObjId.ROOT")
        #expect(ObjType.Text.debugDescription == "Text")
        #expect(Value.Scalar(.Int(1)).debugDescription == "ScalarValue<Int(1)>")
        #expect(Value.Object(.ROOT, .Map).debugDescription == "Object<_root, Map>")
        let hash = Self.hash(first: 0xab)
        #expect(hash.debugDescription == "ab" + String(repeating: "07", count: 31))

        let doc = Document()
        let text = try doc.putObject(obj: .ROOT, key: "t", ty: .Text)
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "ab")
        let cursor = try doc.cursor(obj: text, position: 1)
        #expect(cursor.description == cursor.bytes.map { String(format: "%02X", $0) }.joined())
    }

    @Test func conversionErrorsAreTheOnes061Names() {
        guard case .failure(.notIntScalarValue(.Int(1000))) = Int8.fromScalarValue(.Int(1000)) else {
            Issue.record("out of range for Int8")
            return
        }
        guard case .failure(.notUIntScalarValue(.String("x"))) = UInt.fromScalarValue(.String("x")) else {
            Issue.record("not an unsigned integer")
            return
        }
        #expect((try? ScalarValue.fromScalarValue(.Null).get()) == .Null)
    }

    @Test func changeDependenciesInStoredOrder() throws {
        let base = Document()
        try base.put(obj: .ROOT, key: "a", value: .Int(1))
        let forks = (0..<3).map { _ in base.fork() }
        for (index, fork) in forks.enumerated() { try fork.put(obj: .ROOT, key: "f\(index)", value: .Int(1)) }
        for fork in forks { try base.merge(other: fork) }
        try base.put(obj: .ROOT, key: "after", value: .Int(1))
        let last = try #require(base.change(hash: base.getHistory().last!))
        #expect(last.deps.count == 4)  // the three forks, and base's own last change (as Rust lists it)
        #expect(last.deps == last.deps.sorted { $0.data.lexicographicallyPrecedes($1.data) })
    }

    /// Inserted text comes as one splice per run under the same marks, each
    /// carrying those marks, as Rust's patches do.
    @Test func textSplicesCarryTheirMarks() throws {
        let doc = Document()
        let text = try doc.putObject(obj: .ROOT, key: "t", ty: .Text)
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "abcd")
        try doc.mark(obj: text, start: 1, end: 3, expand: .none, name: "bold", value: .Boolean(true))
        try doc.mark(obj: text, start: 2, end: 4, expand: .none, name: "link", value: .String("x"))
        let splices = doc.difference(from: [], to: doc.heads()).compactMap { patch -> (String, [String: Value])? in
            guard case .SpliceText(obj: text, index: _, value: let value, marks: let marks) = patch.action else { return nil }
            return (value, marks)
        }
        #expect(splices.map(\.0) == ["a", "b", "c", "d"])
        #expect(splices.map(\.1) == [
            [:], ["bold": .Scalar(.Boolean(true))],
            ["bold": .Scalar(.Boolean(true)), "link": .Scalar(.String("x"))], ["link": .Scalar(.String("x"))],
        ])
    }

    @Test func boundTextDescribesWhereItIs() throws {
        let doc = Document()
        let text = try AutomergeText("hi", doc: doc, path: ".notes.title")
        #expect(text.debugDescription == "AutomergeText(.notes.title): hi")
        #expect(AutomergeText("x").debugDescription == "AutomergeText(unbound): x")
        #expect(text.description == "hi")
    }

    /// 0.6.1 throws for dictionaries whose keys are not strings; here they
    /// take Swift's own Codable form (a list alternating keys and values) and read back.
    @Test func dictionariesWithIntegerKeysRoundTrip() throws {
        struct Wrapper: Codable, Equatable { var numbers: [Int: String] }
        let doc = Document()
        let wrapper = Wrapper(numbers: [1: "one", 2: "two"])
        try AutomergeEncoder(doc: doc).encode(wrapper)
        #expect(try AutomergeDecoder(doc: doc).decode(Wrapper.self) == wrapper)
    }
}

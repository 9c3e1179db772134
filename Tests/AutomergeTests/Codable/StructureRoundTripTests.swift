import Foundation
import Testing
@testable import Automerge

/// Enums with associated values, in Swift's synthesized representation
/// (automerge-swift issues #217 and #223).
enum CodableShape: Codable, Equatable {
    case circle(radius: Double)
    case rectangle(width: Double, height: Double)
    case point
    case labelled(String, Int)
    case nested(CodableAddress, tags: [String])
}

struct CodableDrawing: Codable, Equatable {
    var shapes: [CodableShape]
    var primary: CodableShape
    var optionalShape: CodableShape?
}

@Suite("Codable: structure round trips")
struct CodableStructureRoundTripTests {
    let person = CodablePerson(name: "Ada", age: 36, address: CodableAddress(street: "1 Main St", city: "London", zip: nil),
                        nicknames: ["Countess", "Enchantress of Numbers"], email: "ada@example.com")

    @Test func nestedStructsAndOptionals() throws {
        #expect(try codableRoundTrip(person) == person)
        var noEmail = person
        noEmail.email = nil
        noEmail.address.zip = "N1"
        #expect(try codableRoundTrip(noEmail) == noEmail)
    }

    @Test func documentShape() throws {
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(person)
        #expect(doc.keys(obj: .ROOT) == ["address", "age", "email", "name", "nicknames"])
        guard case .Object(let address, .Map)? = try doc.get(obj: .ROOT, key: "address"),
              case .Object(let nicknames, .List)? = try doc.get(obj: .ROOT, key: "nicknames") else {
            Issue.record("expected a map and a list")
            return
        }
        #expect(try doc.get(obj: address, key: "city") == .Scalar(.String("London")))
        #expect(try doc.get(obj: address, key: "zip") == nil)
        #expect(doc.length(obj: nicknames) == 2)
        #expect(try doc.get(obj: .ROOT, key: "age") == .Scalar(.Int(36)))
    }

    @Test func settingAnOptionalToNilRemovesTheKey() throws {
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(person)
        var updated = person
        updated.email = nil
        try AutomergeEncoder(doc: doc).encode(updated)
        #expect(try doc.get(obj: .ROOT, key: "email") == nil)
        #expect(try AutomergeDecoder(doc: doc).decode(CodablePerson.self) == updated)
    }

    @Test func arraysOfStructsAndNestedArrays() throws {
        let list = CodableTodoList(owner: "me", items: (0..<20).map { CodableItem(id: $0, title: "task \($0)", done: $0 % 3 == 0) })
        #expect(try codableRoundTrip(list) == list)
        let grid = CodableBox(value: [[1, 2, 3], [], [4]])
        #expect(try codableRoundTrip(grid) == grid)
        let optionals = CodableBox(value: [1, nil, 3] as [Int?])
        #expect(try codableRoundTrip(optionals) == optionals)
        let empty = CodableBox(value: [CodableItem]())
        #expect(try codableRoundTrip(empty) == empty)
    }

    @Test func dictionaries() throws {
        let byName = CodableBox(value: ["alpha": CodableItem(id: 1, title: "a", done: false), "beta": CodableItem(id: 2, title: "b", done: true)])
        #expect(try codableRoundTrip(byName) == byName)
        let byNumber = CodableBox(value: [1: "one", 20: "twenty", -3: "minus three"])
        #expect(try codableRoundTrip(byNumber) == byNumber)
        let nested = CodableBox(value: ["outer": ["inner": [1.5, 2.5]]])
        #expect(try codableRoundTrip(nested) == nested)
        let empty = CodableBox(value: [String: Int]())
        #expect(try codableRoundTrip(empty) == empty)
        let set = CodableBox(value: Set(["x", "y", "z"]))
        #expect(try codableRoundTrip(set) == set)
    }

    @Test func topLevelDictionaryIsTheRootMap() throws {
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(["a": 1, "b": 2])
        #expect(doc.keys(obj: .ROOT) == ["a", "b"])
        #expect(try AutomergeDecoder(doc: doc).decode([String: Int].self) == ["a": 1, "b": 2])
    }

    @Test func enumsWithAssociatedValues() throws {
        let drawing = CodableDrawing(
            shapes: [.circle(radius: 2), .rectangle(width: 3, height: 4), .point, .labelled("x", 7),
                     .nested(CodableAddress(street: "s", city: "c", zip: "z"), tags: ["t1", "t2"])],
            primary: .labelled("main", -1), optionalShape: nil)
        #expect(try codableRoundTrip(drawing) == drawing)
        var withOptional = drawing
        withOptional.optionalShape = .point
        #expect(try codableRoundTrip(withOptional) == withOptional)
    }

    @Test func enumPayloadUsesSwiftsRepresentation() throws {
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(CodableBox(value: CodableShape.labelled("x", 7)))
        guard case .Object(let value, .Map)? = try doc.get(obj: .ROOT, key: "value"),
              case .Object(let payload, .Map)? = try doc.get(obj: value, key: "labelled") else {
            Issue.record("expected value.labelled to be a map")
            return
        }
        #expect(doc.keys(obj: value) == ["labelled"])
        #expect(doc.keys(obj: payload) == ["_0", "_1"])
        #expect(try doc.get(obj: payload, key: "_1") == .Scalar(.Int(7)))
    }

    @Test func changingAnEnumCaseReplacesThePayload() throws {
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(CodableBox(value: CodableShape.circle(radius: 1)))
        try AutomergeEncoder(doc: doc).encode(CodableBox(value: CodableShape.rectangle(width: 2, height: 3)))
        #expect(try AutomergeDecoder(doc: doc).decode(CodableBox<CodableShape>.self).value == .rectangle(width: 2, height: 3))
        try AutomergeEncoder(doc: doc).encode(CodableBox(value: CodableShape.point))
        #expect(try AutomergeDecoder(doc: doc).decode(CodableBox<CodableShape>.self).value == .point)
    }

    @Test func customCodingWithNestedAndSuperContainers() throws {
        struct Custom: Codable, Equatable {
            var a: Int
            var pair: [String]
            var parent: String
            enum CodingKeys: String, CodingKey { case a, inner, parent }
            enum InnerKeys: String, CodingKey { case pair }
            init(a: Int, pair: [String], parent: String) { (self.a, self.pair, self.parent) = (a, pair, parent) }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(a, forKey: .a)
                var inner = container.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
                var list = inner.nestedUnkeyedContainer(forKey: .pair)
                for item in pair { try list.encode(item) }
                var superContainer = container.superEncoder(forKey: .parent).singleValueContainer()
                try superContainer.encode(parent)
            }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                a = try container.decode(Int.self, forKey: .a)
                var list = try container.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner).nestedUnkeyedContainer(forKey: .pair)
                var pair: [String] = []
                while !list.isAtEnd { pair.append(try list.decode(String.self)) }
                self.pair = pair
                parent = try container.superDecoder(forKey: .parent).singleValueContainer().decode(String.self)
            }
        }
        let value = Custom(a: 1, pair: ["x", "y"], parent: "p")
        #expect(try codableRoundTrip(value) == value)
    }

    @Test func userInfoReachesTheModel() throws {
        let key = CodingUserInfoKey(rawValue: "scale")!
        struct Scaled: Codable {
            var value: Int
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(value * (encoder.userInfo[CodingUserInfoKey(rawValue: "scale")!] as! Int), forKey: .value)
            }
        }
        let doc = Document()
        var encoder = AutomergeEncoder(doc: doc)
        encoder.userInfo[key] = 10
        try encoder.encode(Scaled(value: 4))
        var decoder = AutomergeDecoder(doc: doc)
        decoder.userInfo[key] = "seen"
        struct Reader: Decodable {
            var seen: String
            init(from decoder: any Decoder) throws { seen = decoder.userInfo[CodingUserInfoKey(rawValue: "scale")!] as! String }
        }
        #expect(try decoder.decode(Reader.self).seen == "seen")
        #expect(try doc.get(obj: .ROOT, key: "value") == .Scalar(.Int(40)))
    }

    @Test func stringsWrittenAsTextByOtherPeersDecodeAsStrings() throws {
        let doc = Document()
        let text = try doc.putObject(obj: .ROOT, key: "value", ty: .Text)
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "from javascript")
        #expect(try AutomergeDecoder(doc: doc).decode(CodableBox<String>.self).value == "from javascript")
        // Re-encoding a String over it edits the text in place instead of replacing it.
        try AutomergeEncoder(doc: doc).encode(CodableBox(value: "from swift"))
        #expect(try doc.get(obj: .ROOT, key: "value") == .Object(text, .Text))
        #expect(try doc.text(obj: text) == "from swift")
    }
}

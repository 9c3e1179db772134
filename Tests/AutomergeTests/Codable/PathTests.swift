import Foundation
import Testing
@testable import Automerge

@Suite("Codable: paths")
struct CodablePathTests {
    /// automerge-swift's rules: keys start with an ASCII letter, indexes are
    /// bracketed, empty components are skipped, and the error names the component.
    @Test func parsePath() throws {
        #expect(try AnyCodingKey.parsePath(".settings.theme") == [AnyCodingKey("settings"), AnyCodingKey("theme")])
        #expect(try AnyCodingKey.parsePath("list.[3].name") == [AnyCodingKey("list"), AnyCodingKey(3), AnyCodingKey("name")])
        #expect(try AnyCodingKey.parsePath("") == [])
        #expect(try AnyCodingKey.parsePath("..a1_b") == [AnyCodingKey("a1_b")])
        #expect(throws: PathParseError.EmptyListIndex("[]")) { try AnyCodingKey.parsePath(".list.[]") }
        #expect(throws: PathParseError.EmptyListIndex("[x]")) { try AnyCodingKey.parsePath(".list.[x]") }
        #expect(throws: PathParseError.EmptyListIndex("[-1]")) { try AnyCodingKey.parsePath(".list.[-1]") }
        for refused in ["[2", "1", "/", "_0", "é", "/list/0"] {
            #expect(throws: PathParseError.InvalidPathElement(refused)) { try AnyCodingKey.parsePath(".list.\(refused)") }
        }
        #expect([AnyCodingKey("a"), AnyCodingKey(UInt64(2))].stringPath() == ".a.[2]")
    }

    @Test func anyCodingKeyInitialisers() {
        enum Keys: String, CodingKey { case name }
        let obj = ObjId.ROOT
        #expect(AnyCodingKey(Prop.Key("k")) == AnyCodingKey("k"))
        #expect(AnyCodingKey(PathElement(obj: obj, prop: .Index(4))) == AnyCodingKey(4))
        #expect(AnyCodingKey(Keys.name) == AnyCodingKey("name"))
        #expect(AnyCodingKey(intValue: 2) == AnyCodingKey(UInt64(2)))
        #expect(AnyCodingKey(intValue: -1) == nil)
        #expect(AnyCodingKey(stringValue: "s")?.intValue == nil)
        #expect(AnyCodingKey(7).stringValue == "7" && AnyCodingKey(7).intValue == 7)
        #expect(AnyCodingKey.ROOT == AnyCodingKey(""))
    }

    @Test func encodeAndDecodeAtAPath() throws {
        let doc = Document()
        let address = CodableAddress(street: "s", city: "c", zip: nil)
        let path = [AnyCodingKey("people"), AnyCodingKey(0), AnyCodingKey("address")]
        try AutomergeEncoder(doc: doc).encode(address, at: path)
        #expect(try doc.lookupPath(path: ".people.[0].address") != nil)
        let decoder = AutomergeDecoder(doc: doc)
        #expect(try decoder.decode(CodableAddress.self, from: path) == address)
        #expect(try decoder.decode(String.self, from: path + [AnyCodingKey("city")]) == "c")
        #expect(try decoder.decode(String?.self, from: path + [AnyCodingKey("zip")]) == nil)
        #expect(try decoder.decode(CodableAddress.self, from: [AnyCodingKey.ROOT] + path) == address)
        // A scalar at a path, then appending at index == count.
        try AutomergeEncoder(doc: doc).encode("second", at: [AnyCodingKey("people"), AnyCodingKey(1)])
        #expect(try decoder.decode(String.self, from: [AnyCodingKey("people"), AnyCodingKey(1)]) == "second")
        // Bound types decode from a path too.
        try AutomergeEncoder(doc: doc).encode(AutomergeText("text"), at: [AnyCodingKey("title")])
        let title = try decoder.decode(AutomergeText.self, from: [AnyCodingKey("title")])
        #expect(title.isBound && title.value == "text")
        // Encoding at a path leaves the siblings alone.
        try AutomergeEncoder(doc: doc).encode(CodableAddress(street: "t", city: "d", zip: "z"), at: path)
        #expect(try decoder.decode(String.self, from: [AnyCodingKey("people"), AnyCodingKey(1)]) == "second")
    }

    @Test func pathErrors() throws {
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(CodableTodoList(owner: "me", items: []))
        let encoder = AutomergeEncoder(doc: doc)
        let decoder = AutomergeDecoder(doc: doc)
        #expect(throws: CodingKeyLookupError.self) { try encoder.encode(1, at: [AnyCodingKey("items"), AnyCodingKey(5)]) }
        #expect(throws: CodingKeyLookupError.self) { try encoder.encode(1, at: [AnyCodingKey("owner"), AnyCodingKey("x")]) }
        #expect(throws: CodingKeyLookupError.self) { try encoder.encode(1, at: [AnyCodingKey("items"), AnyCodingKey("x")]) }
        #expect(throws: CodingKeyLookupError.self) { try encoder.encode(1, at: [AnyCodingKey("new"), AnyCodingKey(3)]) }
        #expect(throws: CodingKeyLookupError.self) { try decoder.decode(Int.self, from: [AnyCodingKey("missing"), AnyCodingKey("x")]) }
        #expect(throws: CodingKeyLookupError.self) { try decoder.decode(Int.self, from: [AnyCodingKey("owner"), AnyCodingKey("x")]) }
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: [AnyCodingKey("absent")]) }
        do {
            try encoder.encode(1, at: [AnyCodingKey("items"), AnyCodingKey(5)])
        } catch let error as CodingKeyLookupError {
            #expect(error.description.contains("length 0") && error.description.contains(".items"))
        }
    }
}

import Foundation
import Testing
@testable import Automerge

@Suite("Codable: schema strategies and typed errors")
struct CodableSchemaStrategyTests {
    let list = CodableTodoList(owner: "me", items: [CodableItem(id: 1, title: "one", done: false)])

    /// A document whose `items` key holds a string instead of a list.
    private func mismatchedDoc() throws -> Document {
        let doc = Document()
        try doc.put(obj: .ROOT, key: "owner", value: .String("someone"))
        try doc.put(obj: .ROOT, key: "items", value: .String("not a list"))
        return doc
    }

    @Test func createWhenNeededCreatesMissingSchema() throws {
        let doc = Document()
        try AutomergeEncoder(doc: doc, strategy: .createWhenNeeded).encode(list)
        #expect(try AutomergeDecoder(doc: doc).decode(CodableTodoList.self) == list)
    }

    @Test func createWhenNeededThrowsOnMismatchAndWritesNothing() throws {
        let doc = try mismatchedDoc()
        codableSettle(doc)
        let heads = doc.heads()
        #expect {
            try AutomergeEncoder(doc: doc).encode(list)
        } throws: { error in
            guard case CodingKeyLookupError.MismatchedSchema(let message) = error else { return false }
            return message.contains(".items") && message.contains("List") && message.contains("not a list")
        }
        // The owner key, planned before the failing items key, was not written either.
        #expect(codablePendingOps(doc) == 0 && doc.heads() == heads)
        #expect(try doc.get(obj: .ROOT, key: "owner") == .Scalar(.String("someone")))
    }

    @Test func overrideReplacesMismatchedSchema() throws {
        let doc = try mismatchedDoc()
        try AutomergeEncoder(doc: doc, strategy: .override).encode(list)
        #expect(try AutomergeDecoder(doc: doc).decode(CodableTodoList.self) == list)
        // Matching objects are kept, not recreated.
        let items = try doc.get(obj: .ROOT, key: "items")
        try AutomergeEncoder(doc: doc, strategy: .override).encode(list)
        #expect(try doc.get(obj: .ROOT, key: "items") == items)
    }

    @Test func readonlyWritesValuesButNeverSchema() throws {
        let doc = Document()
        #expect {
            try AutomergeEncoder(doc: doc, strategy: .readonly).encode(list)
        } throws: { error in
            guard case CodingKeyLookupError.SchemaMissing(let message) = error else { return false }
            return message.contains(".items")
        }
        #expect(codablePendingOps(doc) == 0)
        try AutomergeEncoder(doc: doc).encode(list)
        var changed = list
        changed.owner = "you"
        changed.items[0].done = true
        try AutomergeEncoder(doc: doc, strategy: .readonly).encode(changed)
        #expect(try AutomergeDecoder(doc: doc).decode(CodableTodoList.self) == changed)
        changed.items.append(CodableItem(id: 2, title: "two", done: false))
        #expect(throws: CodingKeyLookupError.self) { try AutomergeEncoder(doc: doc, strategy: .readonly).encode(changed) }
        changed.items = []
        #expect(throws: CodingKeyLookupError.self) { try AutomergeEncoder(doc: doc, strategy: .readonly).encode(changed) }
        #expect(throws: CodingKeyLookupError.self) {
            try AutomergeEncoder(doc: doc, strategy: .readonly).encode(CodableItem(id: 1, title: "x", done: true), at: [AnyCodingKey("new"), AnyCodingKey("deeper")])
        }
    }

    @Test func cautiousWriteRejectsScalarTypeChanges() throws {
        struct Loose: Codable { var owner: Int }
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(list)
        #expect {
            try AutomergeEncoder(doc: doc, cautiousWrite: true).encode(Loose(owner: 5))
        } throws: { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["owner"] && context.debugDescription.contains("String")
        }
        // Without cautiousWrite the scalar is simply replaced.
        try AutomergeEncoder(doc: doc).encode(Loose(owner: 5))
        #expect(try doc.get(obj: .ROOT, key: "owner") == .Scalar(.Int(5)))
    }

    @Test func decodingMismatchesNameThePath() throws {
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(list)
        struct WrongItem: Codable { var id: String }
        struct WrongList: Codable { var items: [WrongItem] }
        #expect {
            _ = try AutomergeDecoder(doc: doc).decode(WrongList.self)
        } throws: { error in
            guard case DecodingError.typeMismatch(let type, let context) = error else { return false }
            return type is String.Type && context.codingPath.stringPath() == ".items.[0].id"
                && context.debugDescription.contains("Int(1)")
        }
        struct Missing: Codable { var absent: Int }
        #expect {
            _ = try AutomergeDecoder(doc: doc).decode(Missing.self)
        } throws: { error in
            guard case DecodingError.keyNotFound(let key, _) = error else { return false }
            return key.stringValue == "absent"
        }
        struct NotAList: Codable { var owner: [String] }
        #expect {
            _ = try AutomergeDecoder(doc: doc).decode(NotAList.self)
        } throws: { error in
            guard case DecodingError.typeMismatch(_, let context) = error else { return false }
            return context.codingPath.stringPath() == ".owner" && context.debugDescription.contains("a list")
        }
        struct Small: Codable { var value: UInt8 }
        try doc.put(obj: .ROOT, key: "value", value: .Int(300))
        #expect {
            _ = try AutomergeDecoder(doc: doc).decode(Small.self)
        } throws: { error in
            guard case DecodingError.typeMismatch(_, let context) = error else { return false }
            return context.underlyingError is IntScalarConversionError && context.debugDescription.contains("UInt8") && context.debugDescription.contains("outside the range")
        }
    }

    @Test func mixedListsDoNotDecodeAsHomogeneousArrays() throws {
        let doc = Document()
        let list = try doc.putObject(obj: .ROOT, key: "value", ty: .List)
        try doc.insert(obj: list, index: 0, value: .Int(1))
        try doc.insert(obj: list, index: 1, value: .String("two"))
        #expect(throws: DecodingError.self) { try AutomergeDecoder(doc: doc).decode(CodableBox<[Int]>.self) }
    }

    @Test func verboseLoggingDoesNotChangeTheResult() throws {
        let doc = Document()
        let encoder = AutomergeEncoder(doc: doc, strategy: .createWhenNeeded, cautiousWrite: true, reportingLoglevel: .tracing)
        try encoder.encode(list)
        #expect(encoder.doc === doc && encoder.logLevel == .tracing && encoder.cautiousWrite)
        #expect(LogVerbosity.errorOnly < .debug && LogVerbosity.debug < .tracing)
        #expect(try AutomergeDecoder(doc: doc).decode(CodableTodoList.self) == list)
    }

    @Test func aSingleValueCannotBeTheRoot() throws {
        let doc = Document()
        #expect(throws: CodingKeyLookupError.self) { try AutomergeEncoder(doc: doc).encode(42) }
        #expect(throws: CodingKeyLookupError.self) { try AutomergeEncoder(doc: doc).encode([1, 2]) }
        try AutomergeEncoder(doc: doc).encode(Optional<CodablePerson>.none)
        #expect(doc.keys(obj: .ROOT).isEmpty)
    }
}

import Foundation
import Testing
@testable import AutomergeStore

/// Queries compare field names and string values by their Unicode scalars
/// (CouchDB's equality, code point order), with or without indexes: an
/// index of one spelling never stands in for the other.
@Suite("Unicode: queries and indexes tell fields and values that differ only in normalization apart")
struct UnicodeQueryTests {
    static let composed = Normalization.composed
    static let decomposed = Normalization.decomposed
    let ids = Normalization.ids

    /// Which indexes a datastore has: none, one of the two spellings, both.
    static let indexings: [[String]] = [[], [composed], [composed, decomposed]]

    /// A datastore with `documents` and a JSON index per field of `indexed`.
    static func datastore(_ documents: [(String, BodyValue)], indexed: [String]) throws -> Datastore {
        let datastore = try TemporaryStore().datastore()
        for (docId, body) in documents { try Normalization.create(docId, body, in: datastore) }
        for (number, field) in indexed.enumerated() { try datastore.ensureIndexed(fields: [field], name: "i\(number)") }
        return datastore
    }

    @Test("find with a key matches only the field with the same scalars", arguments: indexings)
    func keysStayApart(indexed: [String]) throws {
        let (c, d) = (ExactString(Self.composed), ExactString(Self.decomposed))
        let datastore = try Self.datastore([("both", [c: 1, d: 2]), ("c", [c: 5]), ("d", [d: 5])], indexed: indexed)
        #expect(try datastore.find([c: 1]).map(\.docId) == ["both"])
        #expect(try datastore.find([d: 2]).map(\.docId) == ["both"])
        #expect(try datastore.find([c: 2]).isEmpty && datastore.find([d: 1]).isEmpty)
        #expect(try datastore.find([c: 5]).map(\.docId) == ["c"])
        #expect(try datastore.find([d: 5]).map(\.docId) == ["d"])
        #expect(try datastore.find([d: ["$exists": true]]).map(\.docId) == ["both", "d"])
        if indexed == [Self.composed] {
            #expect(try datastore.explain([d: 5]).scansEveryDocument, "an index of the other spelling does not narrow")
        }
    }

    @Test("a string value equals only the value with the same scalars, and sorts by code point",
          arguments: [false, true])
    func valuesStayApart(indexed: Bool) throws {
        let datastore = try Self.datastore([("c", ["v": .string(Self.composed)]), ("d", ["v": .string(Self.decomposed)]),
                                            ("f", ["v": "f"]), ("tags", ["t": [.string(Self.composed), .string(Self.decomposed)]]),
                                            ("tc", ["t": [.string(Self.composed)]])],
                                           indexed: indexed ? ["v", "t"] : [])
        let expectations: [(BodyValue, [String])] = [
            (["v": .string(Self.composed)], ["c"]),
            (["v": .string(Self.decomposed)], ["d"]),
            (["v": ["$in": [.string(Self.decomposed)]]], ["d"]),
            (["v": ["$ne": .string(Self.composed)], "t": ["$exists": false]], ["d", "f"]),
            (["v": ["$gt": .string(Self.decomposed)]], ["c", "f"]),
            (["v": ["$lte": .string(Self.decomposed)]], ["d"]),
            (["t": .string(Self.decomposed)], ["tags"]),
        ]
        for (selector, expected) in expectations {
            #expect(try datastore.find(selector).map(\.docId) == expected, "\(selector)")
        }
        if indexed {
            // U+0065 U+0301 < U+0066 < U+00E9.
            #expect(try datastore.find(["v": ["$exists": true]], sort: [SortField("v")]).map(\.docId) == ["d", "f", "c"])
        }
    }

    @Test("indexes of fields that differ only in normalization are different indexes")
    func indexDefinitionsStayApart() throws {
        let datastore = try Self.datastore([], indexed: [])
        try datastore.ensureIndexed(fields: [Self.composed, Self.decomposed], name: "both")
        try datastore.ensureIndexed(fields: [Self.composed], name: "composed")
        #expect(thrownError(as: QueryError.self) { try datastore.ensureIndexed(fields: [Self.decomposed], name: "composed") }
            == .invalidIndex("'composed' exists with another definition"))
        #expect(try datastore.listIndexes().map { $0.fields.map(Normalization.codePoints) }
            == [["U+00E9", "U+0065 U+0301"], ["U+00E9"]])
        try datastore.deleteIndexNamed("both")
        #expect(thrownError(as: QueryError.self) { _ = try datastore.find([:], sort: [SortField(Self.decomposed)]) }
            == .invalidSort("no JSON index holds all of \(Self.decomposed)"))
    }

    @Test("a projection keeps each field it names, whatever its normalization, and a field named twice once")
    func projectionKeepsEachField() throws {
        let (c, d) = (ExactString(Self.composed), ExactString(Self.decomposed))
        let datastore = try Self.datastore([("doc", [c: 1, d: 2, "other": 3])], indexed: [])
        let both = try datastore.find([:], fields: [Self.composed, Self.decomposed]).first?.body.mapValue ?? [:]
        #expect(both.map { "\(Normalization.codePoints($0.key.string)): \($0.value)" }.sorted()
            == ["U+0065 U+0301: 2", "U+00E9: 1"])
        let one = try datastore.find([:], fields: [Self.decomposed]).first?.body.mapValue ?? [:]
        #expect(one.map { "\(Normalization.codePoints($0.key.string)): \($0.value)" } == ["U+0065 U+0301: 2"])
        #expect(try datastore.find([:], fields: ["other", "other"]).map(\.body) == [["other": 3]])
    }

    @Test("$text matches a document by its exact id, also where the matcher decides (an $or no index covers)")
    func textSearchMatchesExactIds() throws {
        let datastore = try Self.datastore([(Self.composed, ["text": "apple"]), (Self.decomposed, ["text": "pear"])], indexed: [])
        try datastore.ensureIndexed(fields: ["text"], name: "words", type: .text)
        #expect(try ids(datastore.find(["$text": "apple"])) == ["U+00E9"])
        #expect(try ids(datastore.find(["$or": [["$text": "apple"], ["missing": 1]]])) == ["U+00E9"])
        #expect(try ids(datastore.find(["$or": [["$text": "pear"], ["missing": 1]]])) == ["U+0065 U+0301"])
    }

    @Test("dotted paths and operators are read by scalars: a '.' or '$' followed by a combining mark still counts")
    func pathsAndOperatorsByScalars() throws {
        let datastore = try Self.datastore([("doc", ["a": ["\u{301}": 1]])], indexed: [])
        #expect(try datastore.find(["a.\u{301}": 1]).map(\.docId) == ["doc"])
        #expect(thrownError(as: QueryError.self) { _ = try datastore.find(["$\u{301}eq": 1]) }
            == .invalidSelector(path: "$\u{301}eq", reason: "unknown operator '$\u{301}eq'"))
        #expect(thrownError(as: QueryError.self) { _ = try datastore.find([:], fields: ["a.\u{301}"]) }
            == .invalidField("a.\u{301}", reason: "projected fields are top-level names, without dots"))
    }
}

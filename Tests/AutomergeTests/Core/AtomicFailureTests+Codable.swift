import Foundation
import Testing
@testable import Automerge

/// A value whose encoding fails, wherever it sits in a model.
private struct Unencodable: Encodable {
    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(0, EncodingError.Context(codingPath: encoder.codingPath, debugDescription: "refused"))
    }
}

private struct Settings: Encodable {
    var title = "new title"
    var tags = ["a", "b"]
    var extra: [Unencodable] = []
}

private struct Model: Encodable {
    var first = 1
    var second = "two"
    var settings = Settings()
}

/// Maps nested `depth` deep below key "a".
private final class Nest: Encodable {
    let a: Nest?
    init(depth: Int) { a = depth > 1 ? Nest(depth: depth - 1) : nil }
}

/// The Codable encoder: a model is checked in full (its own encoding, the
/// document's schema, and the document's limits) before anything is written.
extension AtomicFailureTests {
    @Test func codableEncode() throws {
        let f = try EditedDocument()
        let encoder = AutomergeEncoder(doc: f.doc)
        // Part-way: a naive encoder writes `first`, `second` and the title
        // before it meets the value that cannot encode.
        var model = Model()
        model.settings.extra = [Unencodable()]
        expectRefused(f.doc, "a value that fails deep inside a model", throwing: EncodingError.self, { try encoder.encode(model, at: [AnyCodingKey("model")]) }) {
            if case .invalidValue(_, let context) = $0 { return context.debugDescription == "refused" }
            return false
        }
        // The document's "map" holds a string at "k": the model's list there
        // does not fit its schema, after two keys that do.
        struct Mismatch: Encodable {
            var a = 1
            var b = 2
            var k = [1, 2]
        }
        expectRefused(f.doc, "a list where the document has a string", throwing: CodingKeyLookupError.self, {
            try encoder.encode(Mismatch(), at: [AnyCodingKey("map")])
        }) {
            if case .MismatchedSchema = $0 { return true }
            return false
        }
        // Part-way: a naive encoder creates the first 256 levels of maps,
        // then the op set refuses the next.
        expectRefused(f.doc, "a value nested past the depth limit", with: .invalidChange("objects nested more than 256 deep")) {
            try encoder.encode(Nest(depth: OpSet.maxDepth + 1), at: [AnyCodingKey("deep")])
        }
        expectRefused(f.doc, "a value nested past the depth limit along a new path", with: .invalidChange("objects nested more than 256 deep")) {
            try encoder.encode(Nest(depth: OpSet.maxDepth), at: [AnyCodingKey("new"), AnyCodingKey("path")])
        }
        try expectStillWorks(f.doc) {
            try encoder.encode(Nest(depth: OpSet.maxDepth - 1), at: [AnyCodingKey("new"), AnyCodingKey("path")])
            try encoder.encode(Model(), at: [AnyCodingKey("model")])
        }

        // Part-way: a naive encoder writes the map and four of its values
        // before the op counter runs out.
        let full = try EditedDocument(roomLeft: 4)
        expectRefused(full.doc, "a model of six ops with room for four", with: .opCounterOverflow) {
            try AutomergeEncoder(doc: full.doc).encode(["a": 1, "b": 2, "c": 3, "d": 4, "e": 5], at: [AnyCodingKey("numbers")])
        }
        expectRefused(full.doc, "a text update of eight ops with room for four", with: .opCounterOverflow) {
            try AutomergeEncoder(doc: full.doc).encode("hello there", at: [AnyCodingKey("text")])
        }
        try expectStillWorks(full.doc) {
            try AutomergeEncoder(doc: full.doc).encode(["a": 1, "b": 2, "c": 3], at: [AnyCodingKey("numbers")])
        }
    }
}

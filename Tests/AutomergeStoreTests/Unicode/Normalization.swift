import Foundation
@testable import AutomergeStore

/// Two spellings of "é" that Swift's `String ==` takes for one string and
/// JSON, Automerge, SQLite and CouchDB take for two.
enum Normalization {
    /// U+00E9.
    static let composed = "\u{E9}"
    /// U+0065 U+0301.
    static let decomposed = "e\u{301}"

    /// A string's code points (`U+0065 U+0301`), which a failed expectation
    /// shows apart where the strings themselves would print alike.
    static func codePoints(_ string: String?) -> String {
        guard let string else { return "nil" }
        return string.unicodeScalars.map { "U+" + String(format: "%04X", $0.value) }.joined(separator: " ")
    }

    /// The ids of `revisions`, as code points, in order.
    static func ids(_ revisions: [DocumentRevision]) -> [String] { revisions.map { codePoints($0.docId) } }

    /// A new document `docId` with `body`, created in `datastore`.
    @discardableResult
    static func create(_ docId: String, _ body: BodyValue, in datastore: Datastore) throws -> DocumentRevision {
        let revision = DocumentRevision(docId: docId)
        revision.body = body
        return try datastore.createDocumentFromRevision(revision)
    }
}

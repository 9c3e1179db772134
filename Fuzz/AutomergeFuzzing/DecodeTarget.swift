import Automerge
import AutomergeConformance
import Foundation

/// `decode`: `Document(bytes)`, then `AutomergeDecoder` into ``FuzzModel``,
/// ``LenientFuzzModel`` and parts of them at paths. A decode either throws a
/// typed error or succeeds; a model that decodes must
/// - encode into an empty document and decode from it to the same model
///   (compared as the documents both encodes write),
/// - encode back into the document it came from, and read back the same,
/// - leave that document saving and reloading equal, also after edits
///   through its bound `AutomergeText` and `Counter`.
enum DecodeTarget {
    static func run(_ data: Data) throws(FuzzFailure) {
        let doc: Document
        do { doc = try Document(data) } catch {
            try Check.typedLoadError(error, "decode")
            return
        }
        doc.actor = FixedActor.make(7)

        if let model = try roundTrip(FuzzModel.self, doc) {
            // Edits through the bound types the decoder produced.
            model.notes.value = model.notes.value + "!"
            model.views.increment(by: 1)
            if let first = model.texts?.first { first.value = String(first.value.reversed()) }
            // A failed write unbinds them; only a document with no op counters left may fail one.
            try Check.that(model.notes.isBound && model.views.isBound || !Check.hasRoom(doc, forOps: 1),
                           "decode: a write unbound a freshly decoded AutomergeText or Counter")
            try Check.saveReload(doc, "decode, after bound edits")
        }
        if let lenient = try roundTrip(LenientFuzzModel.self, doc) {
            lenient.views?.increment(by: -1)
        }
        _ = try roundTrip(FuzzModel.Inner.self, doc, at: ".inner")
        _ = try roundTrip([FuzzModel.Shape].self, doc, at: ".shapes")
        _ = try roundTrip([String: Double].self, doc, at: ".lookup")
        _ = try roundTrip([[Int8]].self, doc, at: ".matrix")
        try Check.saveReload(doc, "decode")
    }

    /// Decodes `T` at `path`; when that works, checks the round trips.
    static func roundTrip<T: Codable>(_ type: T.Type, _ doc: Document, at path: String = "") throws(FuzzFailure) -> T? {
        let context = "decode \(T.self) at '\(path)'"
        let keys: [AnyCodingKey]
        do { keys = try AnyCodingKey.parsePath(path) } catch { throw FuzzFailure("\(context): path does not parse: \(error)") }

        let model: T
        do { model = try AutomergeDecoder(doc: doc).decode(T.self, from: keys) } catch {
            try typed(error, context)
            return nil
        }

        // Through an empty document and back.
        let first = try fresh(model, context)
        let again: T
        do { again = try AutomergeDecoder(doc: first).decode(T.self, from: freshPath) } catch {
            throw FuzzFailure("\(context): a model encoded into an empty document does not decode: \(error)")
        }
        let second = try fresh(again, context)
        try Check.sameDocument(first, second, "\(context): encode, decode, encode changes the model")


        // Back into the document it came from.
        do { try AutomergeEncoder(doc: doc).encode(model, at: keys) } catch AutomergeError.opCounterOverflow {
            return nil  // the document's op counters are used up: it takes no more writes
        } catch {
            throw FuzzFailure("\(context): the decoded model does not encode back into its document: \(error)")
        }
        let reread: T
        do { reread = try AutomergeDecoder(doc: doc).decode(T.self, from: keys) } catch {
            throw FuzzFailure("\(context): after encoding the model back, it no longer decodes: \(error)")
        }
        let third = try fresh(reread, context)
        try Check.sameDocument(first, third, "\(context): encoding the model back into its document and decoding again changes it")

        return model
    }

    /// Where `fresh` puts a value: lists and scalars cannot be the root.
    static let freshPath = [AnyCodingKey("value")]

    /// `value` encoded into an empty document, and that document's content.
    static func fresh<T: Encodable>(_ value: T, _ context: String) throws(FuzzFailure) -> Document {
        let doc = Document()
        doc.actor = FixedActor.make(6)
        do { try AutomergeEncoder(doc: doc).encode(value, at: freshPath) } catch {
            throw FuzzFailure("\(context): the decoded model does not encode into an empty document: \(error)")
        }
        return doc
    }

    /// Decoding errors must be `DecodingError` or one of the library's own types.
    static func typed(_ error: any Error, _ context: String) throws(FuzzFailure) {
        _ = String(describing: error)
        if error is DecodingError { return }
        let name = String(reflecting: type(of: error))
        guard name.hasPrefix("Automerge.") else {
            throw FuzzFailure("\(context): untyped error \(name): \(error)")
        }
    }
}

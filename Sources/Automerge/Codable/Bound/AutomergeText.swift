#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A collaboratively edited string: a reference to a Text object in a document.
///
/// Create one with a value and encode it as part of a model, or bind it
/// yourself; decoding a model binds its `AutomergeText` properties to the
/// document. Once bound, ``value`` reads the document and writing it changes
/// the text with the fewest splices, so concurrent edits from other peers
/// merge character by character. Re-encoding a model with a bound instance
/// writes nothing, and encoding never replaces an existing Text object, so
/// text is never lost.
///
/// ```swift
/// struct Note: Codable {
///     var title: AutomergeText
/// }
/// let note = try AutomergeDecoder(doc: doc).decode(Note.self)
/// note.title.value = "A better title"   // minimal splices into the document
/// ```
public final class AutomergeText: Codable, @unchecked Sendable {
    private let state: BindingState<ObjId, String>

    /// An unbound instance holding `initialValue`.
    public init(_ initialValue: String = "") {
        state = BindingState(unbound: initialValue, empty: "")
    }

    /// An instance bound to the Text object at `path` (see ``bind(doc:path:)-(_,String)``).
    public convenience init(_ initialValue: String = "", doc: Document, path: String) throws {
        self.init(initialValue)
        try bind(doc: doc, path: path)
    }

    /// An instance bound to the Text object `objId`.
    /// - Throws: ``BindingError/NotText`` if `objId` is not a Text object of `doc`.
    public convenience init(doc: Document, objId: ObjId) throws {
        self.init()
        try bind(doc: doc, id: objId)
    }

    /// Whether the instance reads and writes a document.
    public var isBound: Bool { state.isBound }

    /// Binds to the Text object at a dot-separated `path`, such as `.notes.[0].title`.
    /// See ``bind(doc:path:)-(_,[AnyCodingKey])``.
    public func bind(doc: Document, path: String) throws {
        try bind(doc: doc, path: BindingPlace.keys(path))
    }

    /// Binds to the Text object at `path`, creating it (and missing maps and
    /// lists on the way) when nothing is there. If the instance holds a
    /// non-empty value, the text becomes that value.
    /// - Throws: ``BindingError/NotText`` if something other than text is at
    ///   the path, ``BindingError/InvalidPath(_:)`` if the path can't be followed.
    public func bind(doc: Document, path: [AnyCodingKey]) throws {
        switch try BindingPlace(doc: doc, path: path, kind: "text") {
        case .existing(.Object(let id, .Text), _):
            try bind(doc: doc, id: id)
        case .existing:
            throw BindingError.NotText
        case .missing(let target):
            let slot = try PlanWriter(doc: doc).create(.text(self), along: target)
            if case .Object(let id, .Text)? = try doc.value(at: slot) { attach(doc: doc, id: id) }
        }
    }

    /// Binds to the Text object `id`. If the instance holds a non-empty value,
    /// the text becomes that value.
    /// - Throws: ``BindingError/NotText`` if `id` is not a Text object of `doc`.
    public func bind(doc: Document, id: ObjId) throws {
        guard (try? doc.checkedObjectType(obj: id)) == .Text else { throw BindingError.NotText }
        let pending = state.unboundValue
        if !pending.isEmpty { try doc.updateText(obj: id, value: pending) }
        attach(doc: doc, id: id)
    }

    /// The text. Reading a bound instance reads the document; writing it
    /// changes the document with minimal splices. If the document rejects the
    /// write, the instance unbinds and keeps the value (``isBound`` turns false).
    public var value: String {
        get {
            let (binding, unbound) = state.snapshot
            guard case let (doc, objId)? = binding else { return unbound }
            return (try? doc.text(obj: objId)) ?? unbound
        }
        set {
            if case let (doc, objId)? = state.binding {
                do {
                    if try doc.text(obj: objId).utf8.elementsEqual(newValue.utf8) { return }
                    sendObjectWillChange()
                    try doc.updateText(obj: objId, value: newValue)
                    return
                } catch {
                    state.unbind()
                }
            }
            sendObjectWillChange()
            state.updateUnbound { $0 = newValue }
        }
    }

    // MARK: Encoder and decoder support

    /// Binds without writing (the encoder has already written the content).
    func attach(doc: Document, id: ObjId) {
        state.attach(doc: doc, place: id)
    }

    /// Whether the instance is bound to the Text object `id` of `doc`.
    func isBound(to doc: Document, id: ObjId) -> Bool {
        state.isBound(to: doc, place: id)
    }

    /// Whether the instance is bound to a document other than `doc` (see
    /// ``BindingState/isBound(toOtherThan:)``).
    func isBound(toOtherThan doc: Document) -> Bool {
        state.isBound(toOtherThan: doc)
    }

    // MARK: Codable

    /// The key other encoders (JSON, property lists) store the string under.
    public enum CodingKeys: String, CodingKey {
        /// The string value.
        case value
    }

    /// With ``AutomergeEncoder`` the text is written as a Text object; other
    /// encoders get a keyed container with the string under `value`.
    public func encode(to encoder: any Encoder) throws {
        if let automerge = encoder as? AutomergeEncoderImpl {
            automerge.storage = .text(self)
            return
        }
        try PlainBoundValueCoding.encode(value, under: CodingKeys.value, to: encoder)
    }

    /// With ``AutomergeDecoder`` the instance is bound to the Text object
    /// being decoded; other decoders read the `value` key (or a plain string).
    public required init(from decoder: any Decoder) throws {
        if let automerge = decoder as? AutomergeDecoderImpl {
            guard case .Object(let id, .Text)? = automerge.value else {
                throw automerge.boundTypeMismatch(AutomergeText.self, expected: "a Text object")
            }
            state = BindingState(doc: automerge.doc, place: id, empty: "")
            return
        }
        let string = try PlainBoundValueCoding.decode(String.self, under: CodingKeys.value, from: decoder)
        state = BindingState(unbound: string, empty: "")
    }
}

extension AutomergeText: Equatable {
    /// Equal when the strings are equal.
    public static func == (lhs: AutomergeText, rhs: AutomergeText) -> Bool {
        lhs === rhs || lhs.value == rhs.value
    }
}

extension AutomergeText: Hashable {
    /// Hashes the string.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}

extension AutomergeText: CustomStringConvertible {
    /// The string.
    public var description: String { value }
}

extension AutomergeText: CustomDebugStringConvertible {
    /// `AutomergeText(.path.to.text): value`, or `AutomergeText(unbound): value`.
    public var debugDescription: String {
        guard case let (doc, objId)? = state.binding else { return "AutomergeText(unbound): \(value)" }
        let place = (try? doc.path(obj: objId).stringPath()) ?? objId.debugDescription
        return "AutomergeText(\(place)): \(value)"
    }
}

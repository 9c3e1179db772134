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
    private let lock = Lock()
    private var doc: Document?
    private var objId: ObjId?
    private var unboundStorage: String

    /// An unbound instance holding `initialValue`.
    public init(_ initialValue: String = "") {
        unboundStorage = initialValue
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
    public var isBound: Bool { lock.withLock { doc != nil } }

    /// Binds to the Text object at a dot-separated `path`, such as `.notes.[0].title`.
    /// See ``bind(doc:path:)-(_,[AnyCodingKey])``.
    public func bind(doc: Document, path: String) throws {
        let keys: [AnyCodingKey]
        do { keys = try AnyCodingKey.parsePath(path) } catch { throw BindingError.InvalidPath("\(path): \(error)") }
        try bind(doc: doc, path: keys)
    }

    /// Binds to the Text object at `path`, creating it (and missing maps and
    /// lists on the way) when nothing is there. If the instance holds a
    /// non-empty value, the text becomes that value.
    /// - Throws: ``BindingError/NotText`` if something other than text is at
    ///   the path, ``BindingError/InvalidPath(_:)`` if the path can't be followed.
    public func bind(doc: Document, path: [AnyCodingKey]) throws {
        let target: PathResolver.WriteTarget?
        do { target = try PathResolver(doc: doc).write(path, strategy: .createWhenNeeded) } catch {
            throw BindingError.InvalidPath("\(path.stringPath()): \(error)")
        }
        guard let target else { throw BindingError.InvalidPath("the root of a document is a map, not text") }
        if target.steps.count == 1, case .Object(let id, .Text)? = target.existing {
            try bind(doc: doc, id: id)
            return
        }
        guard target.steps.count > 1 || target.existing == nil else { throw BindingError.NotText }
        let slot = try PlanWriter(doc: doc).create(.text(self), along: target)
        if case .Object(let id, .Text)? = try doc.value(at: slot) { attach(doc: doc, id: id) }
    }

    /// Binds to the Text object `id`. If the instance holds a non-empty value,
    /// the text becomes that value.
    /// - Throws: ``BindingError/NotText`` if `id` is not a Text object of `doc`.
    public func bind(doc: Document, id: ObjId) throws {
        guard (try? doc.checkedObjectType(obj: id)) == .Text else { throw BindingError.NotText }
        let pending = lock.withLock { unboundStorage }
        if !pending.isEmpty { try doc.updateText(obj: id, value: pending) }
        attach(doc: doc, id: id)
    }

    /// The text. Reading a bound instance reads the document; writing it
    /// changes the document with minimal splices. If the document rejects the
    /// write, the instance unbinds and keeps the value (``isBound`` turns false).
    public var value: String {
        get {
            let (doc, objId, unbound) = lock.withLock { (self.doc, self.objId, unboundStorage) }
            guard let doc, let objId else { return unbound }
            return (try? doc.text(obj: objId)) ?? unbound
        }
        set {
            let (doc, objId) = lock.withLock { (self.doc, self.objId) }
            if let doc, let objId {
                do {
                    if try doc.text(obj: objId).utf8.elementsEqual(newValue.utf8) { return }
                    sendObjectWillChange()
                    try doc.updateText(obj: objId, value: newValue)
                    return
                } catch {
                    lock.withLock { self.doc = nil; self.objId = nil }
                }
            }
            sendObjectWillChange()
            lock.withLock { unboundStorage = newValue }
        }
    }

    // MARK: Encoder and decoder support

    /// Binds without writing (the encoder has already written the content).
    func attach(doc: Document, id: ObjId) {
        lock.withLock {
            self.doc = doc
            objId = id
            unboundStorage = ""
        }
    }

    /// Whether the instance is bound to the Text object `id` of `doc`.
    func isBound(to doc: Document, id: ObjId) -> Bool {
        lock.withLock { self.doc === doc && objId == id }
    }

    /// Whether the instance is bound to a document other than `doc`. The
    /// encoder (re)binds instances that are unbound or bound to the document
    /// it writes, so that an instance follows its text when a list is reordered.
    func isBound(toOtherThan doc: Document) -> Bool {
        lock.withLock { self.doc != nil && self.doc !== doc }
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
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
    }

    /// With ``AutomergeDecoder`` the instance is bound to the Text object
    /// being decoded; other decoders read the `value` key (or a plain string).
    public required init(from decoder: any Decoder) throws {
        if let automerge = decoder as? AutomergeDecoderImpl {
            guard case .Object(let id, .Text)? = automerge.value else {
                throw DecodingError.typeMismatch(AutomergeText.self, DecodingError.Context(
                    codingPath: automerge.codingPath,
                    debugDescription: "Expected a Text object at \(automerge.codingPath.stringPath()), found \(describeValue(automerge.value))."))
            }
            unboundStorage = ""
            doc = automerge.doc
            objId = id
            return
        }
        if let container = try? decoder.container(keyedBy: CodingKeys.self),
           let string = try? container.decode(String.self, forKey: .value) {
            unboundStorage = string
        } else {
            unboundStorage = try decoder.singleValueContainer().decode(String.self)
        }
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
        let (doc, objId) = lock.withLock { (self.doc, self.objId) }
        guard let doc, let objId else { return "AutomergeText(unbound): \(value)" }
        let place = (try? doc.path(obj: objId).stringPath()) ?? objId.debugDescription
        return "AutomergeText(\(place)): \(value)"
    }
}

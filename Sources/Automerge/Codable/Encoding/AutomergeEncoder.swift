#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes `Encodable` values into an Automerge document.
///
/// An encode makes the document match the value: maps get the value's keys
/// (keys the value does not write are removed), lists get its elements,
/// ``AutomergeText`` becomes a Text object and ``Counter`` a counter.
///
/// Encoding runs in two phases. The value is first compared with what the
/// document holds and every write is decided; only then is anything written.
/// So a schema error throws before the document changes, values that already
/// match produce no ops (re-encoding an unchanged model is free in document
/// terms), and an array is updated by a minimal diff: one inserted, removed
/// or changed element costs about one op.
///
/// Before the writing phase, the plan is also checked against the limits
/// the document enforces as it writes (op counters, nesting depth; see
/// `PlanLimits`), so an encode that throws has written nothing. The
/// planning phase and the writing phase are separate calls into the
/// document, so don't let other threads write the same document during an
/// encode: a plan made before their writes may no longer fit it.
///
/// ```swift
/// let doc = Document()
/// let encoder = AutomergeEncoder(doc: doc)
/// try encoder.encode(model)
/// try encoder.encode(model.settings, at: [AnyCodingKey("settings")])
/// ```
public struct AutomergeEncoder {
    /// Values for your types' `encode(to:)` implementations, as `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: Any] = [:]
    /// The document this encoder writes into.
    public let doc: Document
    /// How existing schema is treated.
    public var schemaStrategy: SchemaStrategy
    /// Whether scalar writes check that the document holds the same type first.
    public var cautiousWrite: Bool
    /// How much the encoder reports to standard error.
    public let logLevel: LogVerbosity

    /// An encoder for `doc`.
    /// - Parameters:
    ///   - doc: The document to write into.
    ///   - strategy: How to treat missing or mismatched schema; see ``SchemaStrategy``.
    ///   - cautiousWrite: When true, writing a scalar over a scalar of another
    ///     type (an `Int` over a `String`, say) throws `EncodingError.invalidValue`
    ///     instead of replacing it.
    ///   - reportingLoglevel: How much to report while encoding.
    public init(
        doc: Document,
        strategy: SchemaStrategy = .createWhenNeeded,
        cautiousWrite: Bool = false,
        reportingLoglevel: LogVerbosity = .errorOnly
    ) {
        self.doc = doc
        schemaStrategy = strategy
        self.cautiousWrite = cautiousWrite
        logLevel = reportingLoglevel
    }

    /// Encodes `value` at the root of the document; does nothing for `nil`.
    public func encode<T: Encodable>(_ value: T?) throws {
        if let value { try encode(value, at: []) }
    }

    /// Encodes `value` at the root of the document. The value must encode as
    /// a keyed container (a struct, class or dictionary), because the root is a map.
    public func encode<T: Encodable>(_ value: T) throws {
        try encode(value, at: [])
    }

    /// Encodes `value` at `path` (map keys and list indexes from the root).
    ///
    /// Missing containers along the path are created as the strategy allows:
    /// a map before a key, a list before an index (a new list can only take index 0).
    /// An index equal to a list's length appends.
    /// - Throws: ``CodingKeyLookupError`` when the path or the value does not
    ///   fit the document's schema, `EncodingError` from `cautiousWrite` checks
    ///   or from the value's own `encode(to:)`, ``AutomergeError`` when the
    ///   writes would pass the document's op counter or nesting limits.
    ///   Nothing is written when it throws.
    public func encode<T: Encodable>(_ value: T, at path: [any CodingKey]) throws {
        let log = CodableLog(level: logLevel)
        let encoder = AutomergeEncoderImpl(codingPath: path, userInfo: userInfo)
        let tree = try encoder.box(value, at: path)
        let planner = SchemaPlanner(doc: doc, strategy: schemaStrategy, cautiousWrite: cautiousWrite, log: log)
        let writer = PlanWriter(doc: doc)
        let keys = path.map { AnyCodingKey($0) }
        guard let target = try PathResolver(doc: doc).write(keys, strategy: schemaStrategy) else {
            guard case .map(let map) = Self.atRoot(tree).resolved else {
                throw CodingKeyLookupError.NoPathForSingleValue(
                    "\(T.self) encodes as a \(tree.kindName), but the document root is a map: encode it at a path instead.")
            }
            let plan = try planner.planMap(map, in: .ROOT, path: path)
            var limits = PlanLimits(doc: doc)
            try limits.count(.map(plan), in: .ROOT)
            try limits.check()
            try writer.apply(plan)
            return
        }
        var limits = PlanLimits(doc: doc)
        if target.steps.count > 1 {
            try planner.checkCreatable(tree, at: path)
            try limits.count(creating: tree, in: target.slot.container, along: target.steps.count - 1)
            try limits.check()
            log.debug("create the containers along \(keys.stringPath())")
            try writer.create(tree, along: target)
        } else if let action = try planner.plan(tree, existing: target.existing, slot: target.slot, path: path) {
            try limits.count(action, in: target.slot.container)
            try limits.check()
            try writer.apply(action, at: target.slot)
        }
    }

    /// What `tree` becomes at the root: an ``AutomergeText`` goes under the
    /// key `value` (the root is a map; automerge-swift puts it there, and
    /// ``AutomergeDecoder/decode(_:)`` reads it back from there); anything
    /// else as it is.
    static func atRoot(_ tree: EncodedValue) -> EncodedValue {
        guard case .text = tree.resolved else { return tree }
        let map = EncodedMap()
        map.set(AutomergeText.CodingKeys.value.stringValue, tree)
        return .map(map)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads `Decodable` values from an Automerge document.
///
/// Maps decode as keyed containers, lists as unkeyed containers and scalars
/// as single values. ``AutomergeText`` and ``Counter`` properties come back
/// bound to the document. Mismatches throw `DecodingError` whose coding path
/// and description say where and what the document holds instead.
///
/// ```swift
/// let decoder = AutomergeDecoder(doc: doc)
/// let model = try decoder.decode(Model.self)
/// let settings = try decoder.decode(Settings.self, from: [AnyCodingKey("settings")])
/// ```
public struct AutomergeDecoder {
    /// Values for your types' `init(from:)` implementations, as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: Any] = [:]
    /// The document this decoder reads.
    public let doc: Document

    /// A decoder for `doc`.
    public init(doc: Document) {
        self.doc = doc
    }

    /// Decodes a value from the root map of the document. An ``AutomergeText``
    /// is read from the key `value`, where the encoder puts one encoded at the root.
    public func decode<T: Decodable>(_: T.Type) throws -> T {
        if T.self == AutomergeText.self { return try decode(T.self, from: [AutomergeText.CodingKeys.value]) }
        return try decode(T.self, from: [])
    }

    /// Decodes a value from `path` (map keys and list indexes from the root).
    /// - Throws: ``CodingKeyLookupError`` when the containers along the path
    ///   don't exist, `DecodingError` when the value doesn't match `T`.
    public func decode<T: Decodable>(_: T.Type, from path: [any CodingKey]) throws -> T {
        let (value, slot) = try PathResolver(doc: doc).read(path.map { AnyCodingKey($0) })
        let decoder = AutomergeDecoderImpl(doc: doc, codingPath: path, userInfo: userInfo, value: value, slot: slot)
        return try decoder.unbox(T.self, value: value, slot: slot, path: path)
    }
}

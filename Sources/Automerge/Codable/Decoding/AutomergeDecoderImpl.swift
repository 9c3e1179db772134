#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Decoder` handed to `init(from:)`: one value of the document (or its
/// absence) and where it lives.
final class AutomergeDecoderImpl: Decoder {
    let doc: Document
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    /// The value being decoded; nil when the document has none.
    let value: Value?
    /// Where `value` lives (nil for the root), for binding counters.
    let slot: ValueSlot?

    init(doc: Document, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any], value: Value?, slot: ValueSlot?) {
        self.doc = doc
        self.codingPath = codingPath
        self.userInfo = userInfo
        self.value = value
        self.slot = slot
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .Object(let id, .Map)? = value else {
            throw mismatch([String: Any].self, expected: "a map", at: codingPath, found: value)
        }
        var entries: [String: Value] = [:]
        for (key, value) in try doc.mapEntries(obj: id) { entries[key] = value }
        return KeyedDecodingContainer(DecoderKeyedContainer<Key>(decoder: self, obj: id, entries: entries))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .Object(let id, .List)? = value else {
            throw mismatch([Any].self, expected: "a list", at: codingPath, found: value)
        }
        return DecoderUnkeyedContainer(decoder: self, obj: id, values: try doc.values(obj: id))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        DecoderSingleValueContainer(decoder: self)
    }

    /// Decodes any `T` from `value`: types with a scalar representation
    /// directly, anything else (including ``AutomergeText`` and ``Counter``,
    /// which bind themselves) through its `init(from:)`.
    func unbox<T: Decodable>(_ type: T.Type, value: Value?, slot: ValueSlot?, path: [any CodingKey]) throws -> T {
        if T.self != Counter.self, let scalarType = T.self as? any ScalarValueRepresentable.Type {
            return try scalar(scalarType, from: value, path: path) as! T
        }
        let child = AutomergeDecoderImpl(doc: doc, codingPath: path, userInfo: userInfo, value: value, slot: slot)
        return try T(from: child)
    }

    /// Decodes a scalar type. A Text object reads as its string.
    func scalar<S: ScalarValueRepresentable>(_ type: S.Type, from value: Value?, path: [any CodingKey]) throws -> S {
        let scalar: ScalarValue
        switch value {
        case nil, .Scalar(.Null)?:
            throw DecodingError.valueNotFound(S.self, DecodingError.Context(
                codingPath: path,
                debugDescription: "Expected \(S.self) at \(path.stringPath()), found \(value == nil ? "nothing" : "null")."))
        case .Scalar(let found)?:
            scalar = found
        case .Object(let id, .Text)?:
            scalar = .String(try doc.text(obj: id))
        case .Object?:
            throw mismatch(S.self, expected: "a scalar", at: path, found: value)
        }
        switch S.fromScalarValue(scalar) {
        case .success(let decoded):
            return decoded
        case .failure(let error):
            throw DecodingError.typeMismatch(S.self, DecodingError.Context(
                codingPath: path,
                debugDescription: "Can't decode \(S.self) at \(path.stringPath()): \(error.errorDescription ?? "\(error)")",
                underlyingError: error))
        }
    }

    /// A type mismatch error naming the path, the expectation and what the document has.
    func mismatch(_ type: Any.Type, expected: String, at path: [any CodingKey], found: Value?) -> DecodingError {
        if found == nil || found == .Scalar(.Null) {
            return .valueNotFound(type, DecodingError.Context(
                codingPath: path, debugDescription: "Expected \(expected) at \(path.stringPath()), found \(describeValue(found))."))
        }
        return .typeMismatch(type, DecodingError.Context(
            codingPath: path, debugDescription: "Expected \(expected) at \(path.stringPath()), found \(describeValue(found))."))
    }

    /// The error for a bound type (``AutomergeText``, ``Counter``) whose
    /// value here is not of its kind: a type mismatch even when there is no value.
    func boundTypeMismatch(_ type: Any.Type, expected: String) -> DecodingError {
        .typeMismatch(type, DecodingError.Context(
            codingPath: codingPath, debugDescription: "Expected \(expected) at \(codingPath.stringPath()), found \(describeValue(value))."))
    }
}

/// Reads the decoder's value as one value.
struct DecoderSingleValueContainer: SingleValueDecodingContainer {
    let decoder: AutomergeDecoderImpl
    var codingPath: [any CodingKey] { decoder.codingPath }

    private func scalar<S: ScalarValueRepresentable>(_ type: S.Type) throws -> S {
        try decoder.scalar(S.self, from: decoder.value, path: codingPath)
    }

    func decodeNil() -> Bool { decoder.value == nil || decoder.value == .Scalar(.Null) }
    func decode(_ type: Bool.Type) throws -> Bool { try scalar(type) }
    func decode(_ type: String.Type) throws -> String { try scalar(type) }
    func decode(_ type: Double.Type) throws -> Double { try scalar(type) }
    func decode(_ type: Float.Type) throws -> Float { try scalar(type) }
    func decode(_ type: Int.Type) throws -> Int { try scalar(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try scalar(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.unbox(T.self, value: decoder.value, slot: decoder.slot, path: codingPath)
    }
}

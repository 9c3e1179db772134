#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Encoder` handed to `encode(to:)`: records the model into an
/// ``EncodedValue`` tree without touching the document.
final class AutomergeEncoderImpl: Encoder {
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    /// What this encoder's value turned out to be; nil until a container is requested.
    var storage: EncodedValue?

    init(codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) {
        self.codingPath = codingPath
        self.userInfo = userInfo
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let map: EncodedMap
        if case .map(let existing) = storage {
            map = existing
        } else {
            map = EncodedMap()
            storage = .map(map)
        }
        return KeyedEncodingContainer(EncoderKeyedContainer<Key>(encoder: self, map: map, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let list: EncodedList
        if case .list(let existing) = storage {
            list = existing
        } else {
            list = EncodedList()
            storage = .list(list)
        }
        return EncoderUnkeyedContainer(encoder: self, list: list, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        EncoderSingleValueContainer(encoder: self)
    }

    /// Captures any encodable value found at `path`. Types with a scalar
    /// representation, ``AutomergeText`` and ``Counter`` are recognised
    /// directly; anything else encodes itself into a child encoder.
    func box<T: Encodable>(_ value: T, at path: [any CodingKey]) throws -> EncodedValue {
        if let text = value as? AutomergeText { return .text(text) }
        if let counter = value as? Counter { return .counter(counter) }
        if let scalar = value as? any ScalarValueRepresentable { return .scalar(scalar.toScalarValue()) }
        let child = AutomergeEncoderImpl(codingPath: path, userInfo: userInfo)
        try value.encode(to: child)
        return child.storage ?? .map(EncodedMap())
    }

    /// An encoder whose value is read after encoding finishes (`superEncoder`).
    func deferredChild(at path: [any CodingKey]) -> AutomergeEncoderImpl {
        AutomergeEncoderImpl(codingPath: path, userInfo: userInfo)
    }
}

/// Writes one value into its encoder's storage.
struct EncoderSingleValueContainer: SingleValueEncodingContainer {
    let encoder: AutomergeEncoderImpl
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func store(_ scalar: ScalarValue) { encoder.storage = .scalar(scalar) }

    mutating func encodeNil() throws { store(.Null) }
    mutating func encode(_ value: Bool) throws { store(.Boolean(value)) }
    mutating func encode(_ value: String) throws { store(.String(value)) }
    mutating func encode(_ value: Double) throws { store(.F64(value)) }
    mutating func encode(_ value: Float) throws { store(.F64(Double(value))) }
    mutating func encode(_ value: Int) throws { store(.Int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { store(.Int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { store(.Int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { store(.Int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { store(.Int(value)) }
    mutating func encode(_ value: UInt) throws { store(.Uint(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { store(.Uint(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { store(.Uint(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { store(.Uint(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { store(.Uint(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.storage = try encoder.box(value, at: codingPath)
    }
}

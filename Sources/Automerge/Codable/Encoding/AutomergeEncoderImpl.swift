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
struct EncoderSingleValueContainer: SingleValueEncodingContainer, ScalarStoringContainer {
    let encoder: AutomergeEncoderImpl
    var codingPath: [any CodingKey] { encoder.codingPath }

    func store(_ scalar: ScalarValue) { encoder.storage = .scalar(scalar) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.storage = try encoder.box(value, at: codingPath)
    }
}

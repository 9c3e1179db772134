/// Reads a map as a keyed container. The map's entries are read once.
struct DecoderKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: AutomergeDecoderImpl
    let obj: ObjId
    let entries: [String: Value]
    var codingPath: [any CodingKey] { decoder.codingPath }

    /// The map's keys that `Key` accepts, in key order.
    var allKeys: [Key] { entries.keys.sorted().compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { entries[key.stringValue] != nil }

    private func value(for key: Key) throws -> Value {
        guard let value = entries[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "No key '\(key.stringValue)' in the map at \(codingPath.stringPath())."))
        }
        return value
    }

    private func scalar<S: ScalarValueRepresentable>(_ type: S.Type, _ key: Key) throws -> S {
        try decoder.scalar(S.self, from: try value(for: key), path: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(for: key) == .Scalar(.Null) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unbox(T.self, value: try value(for: key), slot: .key(obj, key.stringValue), path: codingPath + [key])
    }

    private func child(_ key: some CodingKey, value: Value?) -> AutomergeDecoderImpl {
        AutomergeDecoderImpl(doc: decoder.doc, codingPath: codingPath + [key], userInfo: decoder.userInfo,
                             value: value, slot: .key(obj, key.stringValue))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key, value: try value(for: key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key, value: try value(for: key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = AnyCodingKey("super")
        return child(key, value: entries[key.stringValue])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        child(key, value: entries[key.stringValue])
    }
}

/// Records a keyed container (a struct, a class, a dictionary or an enum case)
/// as an ``EncodedMap``. Keys are always the coding keys' string values.
struct EncoderKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: AutomergeEncoderImpl
    let map: EncodedMap
    let codingPath: [any CodingKey]

    private func store(_ scalar: ScalarValue, _ key: Key) { map.set(key.stringValue, .scalar(scalar)) }

    mutating func encodeNil(forKey key: Key) throws { store(.Null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { store(.Boolean(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { store(.String(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { store(.F64(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { store(.F64(Double(value)), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { store(.Int(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { store(.Int(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { store(.Int(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { store(.Int(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { store(.Int(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { store(.Uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { store(.Uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { store(.Uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { store(.Uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { store(.Uint(value), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        map.set(key.stringValue, try encoder.box(value, at: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = EncodedMap()
        map.set(key.stringValue, .map(nested))
        return KeyedEncodingContainer(EncoderKeyedContainer<NestedKey>(encoder: encoder, map: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = EncodedList()
        map.set(key.stringValue, .list(nested))
        return EncoderUnkeyedContainer(encoder: encoder, list: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(named: AnyCodingKey("super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(named: key)
    }

    private func superEncoder(named key: some CodingKey) -> any Encoder {
        let child = encoder.deferredChild(at: codingPath + [key])
        map.set(key.stringValue, .deferred(child))
        return child
    }
}

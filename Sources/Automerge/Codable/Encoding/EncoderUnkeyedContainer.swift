/// Records an unkeyed container (an array, a set, a tuple-like value) as an ``EncodedList``.
struct EncoderUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: AutomergeEncoderImpl
    let list: EncodedList
    let codingPath: [any CodingKey]
    var count: Int { list.items.count }

    private var nextKey: AnyCodingKey { AnyCodingKey(UInt64(list.items.count)) }
    private func store(_ scalar: ScalarValue) { list.items.append(.scalar(scalar)) }

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
        let boxed = try encoder.box(value, at: codingPath + [nextKey])
        list.items.append(boxed)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = EncodedMap()
        let path = codingPath + [nextKey]
        list.items.append(.map(nested))
        return KeyedEncodingContainer(EncoderKeyedContainer<NestedKey>(encoder: encoder, map: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = EncodedList()
        let path = codingPath + [nextKey]
        list.items.append(.list(nested))
        return EncoderUnkeyedContainer(encoder: encoder, list: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let child = encoder.deferredChild(at: codingPath + [nextKey])
        list.items.append(.deferred(child))
        return child
    }
}

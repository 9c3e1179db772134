/// Records an unkeyed container (an array, a set, a tuple-like value) as an ``EncodedList``.
struct EncoderUnkeyedContainer: UnkeyedEncodingContainer, ScalarStoringContainer {
    let encoder: AutomergeEncoderImpl
    let list: EncodedList
    let codingPath: [any CodingKey]
    var count: Int { list.items.count }

    private var nextKey: AnyCodingKey { AnyCodingKey(UInt64(list.items.count)) }
    func store(_ scalar: ScalarValue) { list.items.append(.scalar(scalar)) }

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

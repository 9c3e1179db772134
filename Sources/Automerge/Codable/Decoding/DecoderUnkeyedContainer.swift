/// Reads a list as an unkeyed container. The list's values are read once.
struct DecoderUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: AutomergeDecoderImpl
    let obj: ObjId
    let values: [Value]
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { values.count }
    var isAtEnd: Bool { currentIndex >= values.count }
    private(set) var currentIndex = 0

    init(decoder: AutomergeDecoderImpl, obj: ObjId, values: [Value]) {
        self.decoder = decoder
        self.obj = obj
        self.values = values
    }

    private var currentPath: [any CodingKey] { codingPath + [AnyCodingKey(UInt64(currentIndex))] }

    /// The next element, its slot and path; throws at the end of the list.
    private mutating func next(_ type: Any.Type) throws -> (Value, ValueSlot, [any CodingKey]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: currentPath,
                debugDescription: "The list at \(codingPath.stringPath()) has only \(values.count) elements."))
        }
        let element = (values[currentIndex], ValueSlot.index(obj, UInt64(currentIndex)), currentPath)
        currentIndex += 1
        return element
    }

    private mutating func scalar<S: ScalarValueRepresentable>(_ type: S.Type) throws -> S {
        let (value, _, path) = try next(type)
        return try decoder.scalar(S.self, from: value, path: path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { _ = try next(Any?.self); return false }
        if values[currentIndex] == .Scalar(.Null) {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try scalar(type) }
    mutating func decode(_ type: String.Type) throws -> String { try scalar(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try scalar(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try scalar(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try scalar(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try scalar(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, slot, path) = try next(type)
        return try decoder.unbox(T.self, value: value, slot: slot, path: path)
    }

    private mutating func child(_ type: Any.Type) throws -> AutomergeDecoderImpl {
        let (value, slot, path) = try next(type)
        return AutomergeDecoderImpl(doc: decoder.doc, codingPath: path, userInfo: decoder.userInfo, value: value, slot: slot)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try child([String: Any].self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try child([Any].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try child(Any.self)
    }
}

extension CBORValue {
    /// The one CBOR item that `bytes` hold, whole: bytes left after it are
    /// ``CBORError/trailingBytes(offset:)``. See ``CBORDecoder`` for what is accepted.
    static func decode(_ bytes: [UInt8], maxDepth: Int = CBORDecoder.defaultMaxDepth) throws(CBORError) -> CBORValue {
        var decoder = CBORDecoder(bytes, maxDepth: maxDepth)
        let value = try decoder.decodeItem()
        guard decoder.offset == bytes.count else { throw .trailingBytes(offset: decoder.offset) }
        return value
    }
}

/// Reads CBOR items (RFC 8949) from untrusted bytes, strictly.
///
/// What it accepts: every well-formed item of RFC 8949 §3, in any (not only
/// preferred) serialization, indefinite-length items included: byte and text
/// strings made of definite-length chunks of their own major type, arrays and
/// maps closed by a break code. Indefinite-length items are decoded, not
/// refused, because RFC 8949 allows them and cbor-x (automerge-repo's encoder)
/// can emit them; they cost no more than their bytes, since every element or
/// chunk takes at least one byte of input.
///
/// What it refuses, each with its own ``CBORError`` and the offset at fault:
/// - a length or count larger than the bytes left could hold, checked
///   before anything is allocated (so `5b ffffffffffffffff` costs nothing);
/// - arrays, maps and tags nested more than `maxDepth` (default 64) deep;
/// - additional information 28–30 (reserved), and 31 on integers and tags;
/// - break codes outside an indefinite-length item; chunks of another type;
/// - text that is not valid UTF-8 (each chunk on its own, as RFC 8949 asks);
/// - two-byte simple values below 32; a map key equal to an earlier one;
/// - input that ends inside an item.
///
/// Time and memory are linear in the input's size (map keys are hashed once
/// per enclosing map, a factor bounded by the depth limit), and no input
/// makes it trap: recursion is bounded by the depth limit.
struct CBORDecoder {
    /// The nesting limit used unless one is given: deeper than any automerge-repo message.
    static let defaultMaxDepth = 64

    /// The most elements reserved ahead for a declared count: nested
    /// containers each declaring the whole input's length must not reserve
    /// that much at every level (64 × the input), so past this the arrays
    /// grow only with the elements actually read.
    private static let reserveLimit = 1024

    private let bytes: [UInt8]
    /// Where the next item starts.
    private(set) var offset = 0
    /// How many arrays, maps and tags may enclose an item.
    let maxDepth: Int

    /// A decoder reading `bytes` from the start.
    init(_ bytes: [UInt8], maxDepth: Int = CBORDecoder.defaultMaxDepth) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset == bytes.count }

    /// Reads the item at ``offset`` and moves past it.
    mutating func decodeItem() throws(CBORError) -> CBORValue {
        try item(depth: 0)
    }

    private var remaining: Int { bytes.count - offset }

    /// An initial byte and its argument.
    private struct Head {
        let start: Int
        let major: UInt8
        let info: UInt8
        /// The argument; 0 for an indefinite length.
        let argument: UInt64
        var isIndefinite: Bool { info == 31 }
    }

    private mutating func head() throws(CBORError) -> Head {
        let start = offset
        guard offset < bytes.count else { throw .truncated(offset: start) }
        let initial = bytes[offset]
        offset += 1
        let major = initial >> 5, info = initial & 0x1f
        let argument: UInt64
        switch info {
        case 0..<24:
            argument = UInt64(info)
        case 24...27:
            let width = 1 << Int(info - 24)
            guard remaining >= width else { throw .truncated(offset: start) }
            var value: UInt64 = 0
            for byte in bytes[offset..<offset + width] { value = value << 8 | UInt64(byte) }
            offset += width
            argument = value
        case 28...30:
            throw .reservedAdditionalInfo(offset: start, value: info)
        default:
            argument = 0
        }
        return Head(start: start, major: major, info: info, argument: argument)
    }

    private mutating func item(depth: Int) throws(CBORError) -> CBORValue {
        let head = try head()
        switch head.major {
        case 0, 1:
            guard !head.isIndefinite else {
                throw .indefiniteLengthNotAllowed(offset: head.start, majorType: head.major)
            }
            return head.major == 0 ? .unsigned(head.argument) : .negative(head.argument)
        case 2:
            return .byteString(head.isIndefinite ? try chunkedBytes(head) : try definiteBytes(head))
        case 3:
            return .textString(head.isIndefinite ? try chunkedText(head) : try text(try definiteBytes(head), at: head.start))
        case 4:
            try checkDepth(depth, head)
            return .array(try array(head, depth: depth))
        case 5:
            try checkDepth(depth, head)
            return .map(try map(head, depth: depth))
        case 6:
            guard !head.isIndefinite else {
                throw .indefiniteLengthNotAllowed(offset: head.start, majorType: head.major)
            }
            try checkDepth(depth, head)
            return .tagged(head.argument, try item(depth: depth + 1))
        default:
            return try simpleOrFloat(head)
        }
    }

    private func checkDepth(_ depth: Int, _ head: Head) throws(CBORError) {
        guard depth < maxDepth else { throw .nestingTooDeep(offset: head.start, limit: maxDepth) }
    }

    /// Whether the next byte is a break code; consumes it when it is.
    private mutating func atBreak(of head: Head) throws(CBORError) -> Bool {
        guard offset < bytes.count else { throw .truncated(offset: head.start) }
        guard bytes[offset] == 0xff else { return false }
        offset += 1
        return true
    }

    /// A definite length checked against the input: `unit` bytes at least per element.
    private func checkedCount(_ head: Head, unit: UInt64) throws(CBORError) -> Int {
        guard head.argument <= UInt64(remaining) / unit else {
            throw .lengthExceedsInput(offset: head.start, declared: head.argument, available: remaining)
        }
        return Int(head.argument)
    }

    private mutating func definiteBytes(_ head: Head) throws(CBORError) -> [UInt8] {
        let count = try checkedCount(head, unit: 1)
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    private mutating func chunkedBytes(_ head: Head) throws(CBORError) -> [UInt8] {
        var result: [UInt8] = []
        while try !atBreak(of: head) {
            result += try definiteBytes(try chunk(of: head))
        }
        return result
    }

    private mutating func chunkedText(_ head: Head) throws(CBORError) -> String {
        var result = ""
        while try !atBreak(of: head) {
            let chunk = try chunk(of: head)
            result += try text(try definiteBytes(chunk), at: chunk.start)
        }
        return result
    }

    /// The head of the next chunk of the indefinite-length string `head`.
    private mutating func chunk(of head: Head) throws(CBORError) -> Head {
        let chunk = try self.head()
        guard chunk.major == head.major, !chunk.isIndefinite else { throw .invalidChunk(offset: chunk.start) }
        return chunk
    }

    private func text(_ raw: [UInt8], at start: Int) throws(CBORError) -> String {
        guard let text = String(validating: raw, as: UTF8.self) else { throw .invalidUTF8(offset: start) }
        return text
    }

    private mutating func array(_ head: Head, depth: Int) throws(CBORError) -> [CBORValue] {
        var items: [CBORValue] = []
        if head.isIndefinite {
            while try !atBreak(of: head) { items.append(try item(depth: depth + 1)) }
        } else {
            let count = try checkedCount(head, unit: 1)
            items.reserveCapacity(Swift.min(count, Self.reserveLimit))
            for _ in 0..<count { items.append(try item(depth: depth + 1)) }
        }
        return items
    }

    private mutating func map(_ head: Head, depth: Int) throws(CBORError) -> [CBORValue.MapEntry] {
        var entries: [CBORValue.MapEntry] = []
        var keys: Set<CBORValue> = []
        func entry(_ decoder: inout CBORDecoder) throws(CBORError) {
            let keyStart = decoder.offset
            let key = try decoder.item(depth: depth + 1)
            guard keys.insert(key).inserted else { throw .duplicateMapKey(offset: keyStart) }
            entries.append(CBORValue.MapEntry(key, try decoder.item(depth: depth + 1)))
        }
        if head.isIndefinite {
            while try !atBreak(of: head) { try entry(&self) }
        } else {
            let count = try checkedCount(head, unit: 2)
            entries.reserveCapacity(Swift.min(count, Self.reserveLimit))
            keys.reserveCapacity(Swift.min(count, Self.reserveLimit))
            for _ in 0..<count { try entry(&self) }
        }
        return entries
    }

    private mutating func simpleOrFloat(_ head: Head) throws(CBORError) -> CBORValue {
        switch head.info {
        case 20, 21: return .bool(head.info == 21)
        case 22: return .null
        case 23: return .undefined
        case 24:
            guard head.argument >= 32, let simple = CBORValue.SimpleValue(UInt8(head.argument)) else {
                throw .invalidSimpleValue(offset: head.start, value: UInt8(head.argument))
            }
            return .simple(simple)
        case 25: return .float(CBORFloat.double(fromHalf: UInt16(head.argument)))
        case 26: return .float(Double(Float(bitPattern: UInt32(head.argument))))
        case 27: return .float(Double(bitPattern: head.argument))
        case 31: throw .unexpectedBreak(offset: head.start)
        default:
            // 0...19: unassigned simple values in the initial byte.
            guard let simple = CBORValue.SimpleValue(head.info) else {
                throw .invalidSimpleValue(offset: head.start, value: head.info)
            }
            return .simple(simple)
        }
    }
}

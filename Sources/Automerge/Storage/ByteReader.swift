/// A cursor over untrusted bytes.
///
/// It never reads past the end, and it checks every length field against the
/// bytes that remain *before* it allocates anything, so a field claiming
/// 2^60 bytes fails at once instead of asking for memory. Header fields are
/// read strictly (as Rust's framing parser does).
struct ByteReader {
    /// The bytes, with their original indices.
    let bytes: ArraySlice<UInt8>
    /// The index of the next byte to read.
    private(set) var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    init(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    /// The number of unread bytes.
    var remaining: Int { bytes.endIndex - position }

    /// Whether every byte has been read.
    var isAtEnd: Bool { position >= bytes.endIndex }

    /// The unread bytes.
    var rest: ArraySlice<UInt8> { bytes[position...] }

    mutating func readByte(_ what: @autoclosure () -> String) throws(LoadError) -> UInt8 {
        guard position < bytes.endIndex else { throw .truncated(what: what()) }
        defer { position += 1 }
        return bytes[position]
    }

    /// The next `count` bytes, without copying.
    mutating func readBytes(_ count: UInt64, _ what: @autoclosure () -> String) throws(LoadError) -> ArraySlice<UInt8> {
        guard count <= UInt64(remaining) else {
            throw .lengthPastEnd(what: what(), length: count, remaining: remaining)
        }
        let n = Int(count)
        defer { position += n }
        return bytes[position..<position + n]
    }

    /// Skips the rest of the bytes and returns them.
    mutating func readRest() -> ArraySlice<UInt8> {
        defer { position = bytes.endIndex }
        return bytes[position...]
    }

    mutating func readUnsigned(_ what: @autoclosure () -> String, mode: LEB128.Mode = .strict) throws(LoadError) -> UInt64 {
        try LEB128.readUnsigned(bytes, at: &position, mode: mode, what: what())
    }

    mutating func readSigned(_ what: @autoclosure () -> String, mode: LEB128.Mode = .strict) throws(LoadError) -> Int64 {
        try LEB128.readSigned(bytes, at: &position, mode: mode, what: what())
    }

    /// A strict uLEB that must fit in 32 bits (column specifications).
    mutating func readUnsigned32(_ what: @autoclosure () -> String) throws(LoadError) -> UInt32 {
        let value = try readUnsigned(what())
        guard let small = UInt32(exactly: value) else { throw .leb128TooLarge(what: what()) }
        return small
    }

    /// A uLEB count of items that each take at least `minimumItemSize` bytes;
    /// fails unless that many items could fit in the remaining bytes, so the
    /// caller may reserve capacity for them.
    mutating func readCount(_ what: @autoclosure () -> String, minimumItemSize: Int) throws(LoadError) -> Int {
        let count = try readUnsigned(what())
        let needed = count.multipliedReportingOverflow(by: UInt64(max(minimumItemSize, 1)))
        guard !needed.overflow, needed.partialValue <= UInt64(remaining) else {
            throw .lengthPastEnd(what: what(), length: needed.overflow ? UInt64.max : needed.partialValue,
                                 remaining: remaining)
        }
        return Int(count)
    }

    /// A uLEB length followed by that many bytes.
    mutating func readLengthPrefixed(_ what: @autoclosure () -> String) throws(LoadError) -> ArraySlice<UInt8> {
        let length = try readUnsigned(what())
        return try readBytes(length, what())
    }

    /// A uLEB length followed by that many bytes of UTF-8.
    mutating func readString(_ what: @autoclosure () -> String) throws(LoadError) -> String {
        let raw = try readLengthPrefixed(what())
        guard let string = UTF8Text.decode(raw) else { throw .invalidUTF8(what: what()) }
        return string
    }

    /// An actor id: a uLEB length and that many bytes.
    mutating func readActor(_ what: @autoclosure () -> String) throws(LoadError) -> ActorId {
        ActorId(uncheckedBytes: Array(try readLengthPrefixed(what())))
    }

    /// A uLEB count followed by that many 32-byte hashes.
    mutating func readHashes(_ what: @autoclosure () -> String) throws(LoadError) -> [ChangeHash] {
        let count = try readCount(what(), minimumItemSize: 32)
        var hashes = [ChangeHash]()
        hashes.reserveCapacity(count)
        for _ in 0..<count {
            hashes.append(ChangeHash(bytes: try readBytes(32, what())))
        }
        return hashes
    }

    /// A uLEB count followed by that many actor ids.
    mutating func readActors(_ what: @autoclosure () -> String) throws(LoadError) -> [ActorId] {
        let count = try readCount(what(), minimumItemSize: 1)
        var actors = [ActorId]()
        actors.reserveCapacity(count)
        for _ in 0..<count {
            actors.append(try readActor(what()))
        }
        return actors
    }
}

/// UTF-8 validation that rejects (rather than repairs) invalid input, as
/// Rust does.
enum UTF8Text {
    /// The one-character strings of the ASCII bytes, by byte.
    static let asciiCharacters: [String] = (0..<128).map { String(decoding: [UInt8($0)], as: UTF8.self) }

    static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        // Fast path: ASCII needs no validation beyond the high bit.
        var ascii = true
        for byte in bytes where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether `bytes` are valid UTF-8 (what ``decode(_:)`` accepts), without making a string.
    static func isValid(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let first = bytes.firstIndex(where: { $0 >= 0x80 }) else { return true }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes[first...].makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends a uLEB length and the bytes.
    mutating func appendLengthPrefixed<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        LEB128.appendUnsigned(UInt64(bytes.count), to: &self)
        append(contentsOf: bytes)
    }

    /// Appends the UTF-8 bytes of `string`, a text element's single byte as
    /// one element append.
    @inline(__always)
    mutating func appendUTF8(of string: String) {
        withUTF8Bytes(of: string) { bytes in
            if bytes.count == 1 { append(bytes[0]) } else { append(contentsOf: bytes) }
        }
    }
}

/// Calls `body` with the UTF-8 bytes of `string`, read in place (a small
/// string's bytes are in the value itself). `String.withUTF8` needs a
/// mutable copy of the string: a retain and release per text element of a
/// save, and a copy of the whole string if it were not contiguous, which
/// only a bridged string can be.
@inline(__always)
func withUTF8Bytes<Result>(of string: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = string
    return copy.withUTF8(body)
}

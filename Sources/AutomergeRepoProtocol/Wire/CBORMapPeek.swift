/// Finds one text entry of a CBOR map from the map's first bytes, without
/// decoding (or needing) the rest: entries before it are stepped over by
/// their declared lengths, so a large byte string costs nothing to pass.
///
/// It reads only what it can step over by length: definite-length items,
/// nested at most ``maxDepth`` deep. Anything else (an indefinite-length
/// item, a reserved code, bytes that end first) ends the search with no
/// answer, as does a key of the wrong type or a value that is not text.
/// Every item read takes at least one byte, so the time is linear in the
/// bytes given. Not a validator: whole messages are still read by
/// ``CBORDecoder``.
struct CBORMapPeek {
    static let maxDepth = 16

    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The text value of the first entry of the top-level map whose key is the text `key`, byte for byte.
    static func text(for key: [UInt8], in bytes: UnsafeRawBufferPointer) -> String? {
        var reader = CBORMapPeek(bytes)
        return reader.text(for: key)
    }

    private mutating func text(for key: [UInt8]) -> String? {
        guard let map = head(), map.major == 5, !map.isIndefinite else { return nil }
        for _ in 0..<map.argument {
            guard let entryKey = head(), entryKey.major == 3, !entryKey.isIndefinite,
                  let keyBytes = take(entryKey.argument)
            else { return nil }
            if keyBytes.elementsEqual(key) {
                guard let value = head(), value.major == 3, !value.isIndefinite, let text = take(value.argument) else { return nil }
                return String(validating: text, as: UTF8.self)
            }
            guard skipItem(depth: 0) else { return nil }
        }
        return nil
    }

    private struct Head {
        let major: UInt8
        let info: UInt8
        let argument: UInt64
        var isIndefinite: Bool { info == 31 }
    }

    private mutating func head() -> Head? {
        guard offset < bytes.count else { return nil }
        let initial = bytes[offset]
        offset += 1
        let major = initial >> 5, info = initial & 0x1f
        switch info {
        case 0..<24:
            return Head(major: major, info: info, argument: UInt64(info))
        case 24...27:
            let width = 1 << Int(info - 24)
            guard bytes.count - offset >= width else { return nil }
            var value: UInt64 = 0
            for byte in bytes[offset..<offset + width] { value = value << 8 | UInt64(byte) }
            offset += width
            return Head(major: major, info: info, argument: value)
        case 31:
            return Head(major: major, info: info, argument: 0)
        default:
            return nil
        }
    }

    /// The next `count` bytes, if there are that many.
    private mutating func take(_ count: UInt64) -> UnsafeRawBufferPointer.SubSequence? {
        guard count <= UInt64(bytes.count - offset) else { return nil }
        defer { offset += Int(count) }
        return bytes[offset..<offset + Int(count)]
    }

    private mutating func skipItem(depth: Int) -> Bool {
        guard depth < Self.maxDepth, let head = head(), !head.isIndefinite else { return false }
        switch head.major {
        case 0, 1, 7:
            return true
        case 2, 3:
            return take(head.argument) != nil
        case 4, 5:
            // Each item takes a byte at least: a count past the bytes left cannot be whole.
            let items = head.major == 4 ? head.argument : head.argument.multipliedReportingOverflow(by: 2).partialValue
            guard items <= UInt64(bytes.count - offset) else { return false }
            for _ in 0..<items where !skipItem(depth: depth + 1) { return false }
            return true
        default:
            return skipItem(depth: depth + 1)
        }
    }
}

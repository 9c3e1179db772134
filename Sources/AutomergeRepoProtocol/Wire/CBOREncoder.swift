extension CBORValue {
    /// The item in RFC 8949's preferred serialization: every argument in its
    /// shortest form, definite lengths only, floats in the shortest width that
    /// holds them exactly, map entries in the order given.
    func encoded() -> [UInt8] {
        var writer = CBORWriter()
        writer.write(self)
        return writer.bytes
    }
}

/// Appends CBOR items to a byte buffer.
struct CBORWriter {
    /// What has been written so far.
    private(set) var bytes: [UInt8] = []

    /// Appends `value` in preferred serialization.
    mutating func write(_ value: CBORValue) {
        switch value {
        case .unsigned(let n): writeHead(major: 0, argument: n)
        case .negative(let n): writeHead(major: 1, argument: n)
        case .byteString(let data):
            writeHead(major: 2, argument: UInt64(data.count))
            bytes.append(contentsOf: data)
        case .textString(let text):
            let utf8 = text.utf8
            writeHead(major: 3, argument: UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        case .array(let items):
            writeHead(major: 4, argument: UInt64(items.count))
            for item in items { write(item) }
        case .map(let entries):
            writeHead(major: 5, argument: UInt64(entries.count))
            for entry in entries {
                write(entry.key)
                write(entry.value)
            }
        case .tagged(let tag, let item):
            writeHead(major: 6, argument: tag)
            write(item)
        case .bool(let flag): bytes.append(flag ? 0xf5 : 0xf4)
        case .null: bytes.append(0xf6)
        case .undefined: bytes.append(0xf7)
        case .simple(let simple): writeHead(major: 7, argument: UInt64(simple.rawValue))
        case .float(let number): writeFloat(number)
        }
    }

    /// A head: major type in the top three bits, then the argument in the
    /// fewest bytes (in the low five bits when below 24).
    private mutating func writeHead(major: UInt8, argument: UInt64) {
        let type = major << 5
        switch argument {
        case 0..<24:
            bytes.append(type | UInt8(argument))
        case 24...0xff:
            bytes.append(type | 24)
            bytes.append(UInt8(argument))
        case 0x100...0xffff:
            bytes.append(type | 25)
            appendBigEndian(argument, byteCount: 2)
        case 0x1_0000...0xffff_ffff:
            bytes.append(type | 26)
            appendBigEndian(argument, byteCount: 4)
        default:
            bytes.append(type | 27)
            appendBigEndian(argument, byteCount: 8)
        }
    }

    private mutating func writeFloat(_ number: Double) {
        if let half = CBORFloat.halfBits(exactly: number) {
            bytes.append(0xf9)
            appendBigEndian(UInt64(half), byteCount: 2)
        } else if let single = CBORFloat.single(exactly: number) {
            bytes.append(0xfa)
            appendBigEndian(UInt64(single.bitPattern), byteCount: 4)
        } else {
            bytes.append(0xfb)
            appendBigEndian(number.bitPattern, byteCount: 8)
        }
    }

    private mutating func appendBigEndian(_ value: UInt64, byteCount: Int) {
        for index in stride(from: byteCount - 1, through: 0, by: -1) {
            bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))))
        }
    }
}

import Testing
@_spi(Conformance) @testable import Automerge

/// Parses "85 6f 4a" style hex (spaces optional) for readable expectations.
func bytesFromHex(_ string: String) -> [UInt8] {
    let digits = string.filter { !$0.isWhitespace }
    var bytes = [UInt8]()
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        bytes.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

@Suite("LEB128")
struct LEB128Tests {
    func unsigned(_ value: UInt64) -> [UInt8] {
        var out = [UInt8]()
        LEB128.appendUnsigned(value, to: &out)
        return out
    }

    func signed(_ value: Int64) -> [UInt8] {
        var out = [UInt8]()
        LEB128.appendSigned(value, to: &out)
        return out
    }

    func readUnsigned(_ bytes: [UInt8], _ mode: LEB128.Mode) throws(LoadError) -> UInt64 {
        var index = 0
        let value = try LEB128.readUnsigned(bytes[...], at: &index, mode: mode, what: "test")
        #expect(index == bytes.count, "consumes the whole number")
        return value
    }

    func readSigned(_ bytes: [UInt8], _ mode: LEB128.Mode) throws(LoadError) -> Int64 {
        var index = 0
        let value = try LEB128.readSigned(bytes[...], at: &index, mode: mode, what: "test")
        #expect(index == bytes.count, "consumes the whole number")
        return value
    }

    static let unsignedCases: [(UInt64, String)] = [
        (0, "00"), (1, "01"), (127, "7f"), (128, "80 01"), (16383, "ff 7f"), (16384, "80 80 01"),
        (UInt64(UInt32.max), "ff ff ff ff 0f"), (UInt64.max, "ff ff ff ff ff ff ff ff ff 01"),
    ]

    static let signedCases: [(Int64, String)] = [
        (0, "00"), (-1, "7f"), (63, "3f"), (-64, "40"), (64, "c0 00"), (-65, "bf 7f"),
        (128, "80 01"), (8191, "ff 3f"), (-8192, "80 40"),
        (Int64.max, "ff ff ff ff ff ff ff ff ff 00"), (Int64.min, "80 80 80 80 80 80 80 80 80 7f"),
    ]

    @Test("unsigned numbers are written in minimal form and read back", arguments: unsignedCases)
    func unsignedExamples(_ value: UInt64, _ encoding: String) throws {
        #expect(unsigned(value) == bytesFromHex(encoding))
        #expect(LEB128.unsignedSize(value) == bytesFromHex(encoding).count)
        #expect(try readUnsigned(bytesFromHex(encoding), .strict) == value)
        #expect(try readUnsigned(bytesFromHex(encoding), .lenient) == value)
    }

    @Test("signed numbers are written in minimal form and read back", arguments: signedCases)
    func signedExamples(_ value: Int64, _ encoding: String) throws {
        #expect(signed(value) == bytesFromHex(encoding))
        #expect(LEB128.signedSize(value) == bytesFromHex(encoding).count)
        #expect(try readSigned(bytesFromHex(encoding), .strict) == value)
        #expect(try readSigned(bytesFromHex(encoding), .lenient) == value)
    }

    @Test("strict reading rejects overlong unsigned forms; lenient reading (column data) accepts them")
    func overlongUnsigned() throws {
        for overlong in ["80 00", "81 80 00", "ff ff ff ff ff ff ff ff ff 00"] {
            #expect(throws: LoadError.overlongLEB128(what: "test")) { try readUnsigned(bytesFromHex(overlong), .strict) }
        }
        #expect(try readUnsigned(bytesFromHex("80 00"), .lenient) == 0)
        #expect(try readUnsigned(bytesFromHex("81 80 00"), .lenient) == 1)
    }

    @Test("strict reading rejects overlong signed forms; lenient reading accepts them")
    func overlongSigned() throws {
        // A terminal 00 after a byte whose bit 6 is clear, or 7f after one whose bit 6 is set.
        for overlong in ["bf 00", "81 ff 7f", "80 00", "ff 7f"] {
            #expect(throws: LoadError.overlongLEB128(what: "test")) { try readSigned(bytesFromHex(overlong), .strict) }
        }
        #expect(try readSigned(bytesFromHex("bf 00"), .lenient) == 63)
        #expect(try readSigned(bytesFromHex("ff 7f"), .lenient) == -1)
    }

    @Test("numbers beyond 64 bits are rejected in both modes")
    func tooLarge() {
        let cases = [
            "81 81 81 81 81 81 81 81 81 02",          // 10th byte holds more than the top bit
            "81 81 81 81 81 81 81 81 81 81 81 81",    // more than 10 bytes
        ]
        for bytes in cases {
            #expect(throws: LoadError.leb128TooLarge(what: "test")) { try readUnsigned(bytesFromHex(bytes), .strict) }
            #expect(throws: LoadError.leb128TooLarge(what: "test")) { try readUnsigned(bytesFromHex(bytes), .lenient) }
        }
        for bytes in ["ff ff ff ff ff ff ff ff ff 01", "80 80 80 80 80 80 80 80 80 7e"] {
            #expect(throws: LoadError.leb128TooLarge(what: "test")) { try readSigned(bytesFromHex(bytes), .strict) }
            #expect(throws: LoadError.leb128TooLarge(what: "test")) { try readSigned(bytesFromHex(bytes), .lenient) }
        }
    }

    @Test("a number cut off by the end of the input is truncated, never read past the end")
    func truncated() {
        for bytes in ["", "80", "ff ff"] {
            #expect(throws: LoadError.truncated(what: "test")) { try readUnsigned(bytesFromHex(bytes), .strict) }
            #expect(throws: LoadError.truncated(what: "test")) { try readSigned(bytesFromHex(bytes), .lenient) }
        }
    }

    @Test("every width round-trips")
    func roundTrips() throws {
        for shift in 0..<64 {
            for delta in [-1, 0, 1] as [Int64] {
                let u = (UInt64(1) << UInt64(shift)) &+ UInt64(bitPattern: delta)
                #expect(try readUnsigned(unsigned(u), .strict) == u)
                let s = Int64(bitPattern: u)
                #expect(try readSigned(signed(s), .strict) == s)
                let negated = 0 &- s
                #expect(try readSigned(signed(negated), .strict) == negated)
            }
        }
    }

    @Test("32-bit fields reject larger values")
    func thirtyTwoBit() throws {
        var reader = ByteReader(bytesFromHex("ff ff ff ff 0f"))
        #expect(try reader.readUnsigned32("spec") == UInt32.max)
        var tooBig = ByteReader(bytesFromHex("80 80 80 80 10"))
        #expect(throws: LoadError.leb128TooLarge(what: "spec")) { try tooBig.readUnsigned32("spec") }
    }
}

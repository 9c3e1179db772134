import Testing
@_spi(Conformance) @testable import Automerge

extension ColumnCheck {
    static let testCanonical = ColumnCheck(canonical: true, nullable: true, limit: 1 << 20)
    static let testLenient = ColumnCheck(canonical: false, nullable: true, limit: 1 << 20)
}

@Suite("RLE columns")
struct RLEColumnTests {
    func encode(_ values: [UInt64?]) -> [UInt8] { RLEColumn.encode(values) }

    func decode(_ bytes: [UInt8], _ check: ColumnCheck = .testCanonical) throws(LoadError) -> [UInt64?] {
        try RLEColumn.decode(bytes[...], as: UInt64.self, column: "test", check: check)
    }

    static let canonicalExamples: [([UInt64?], String)] = [
        ([0, 0, 0, nil, nil, 1, 2, 3], "03 00 00 02 7d 01 02 03"),  // the digest's example
        ([], ""),
        ([nil, nil, nil], ""),                  // an all-null column is written as nothing
        ([5], "7f 05"),                         // a lone value is a one-value literal, never 1 x 5
        ([5, 5], "02 05"),
        ([1, 1, 2], "02 01 7f 02"),             // lone value at the end
        ([1, 2, 2], "7f 01 02 02"),             // a literal never ends with the next run's value
        ([1, 2, 3, 3, 4], "7e 01 02 02 03 7f 04"),
        ([nil, 1], "00 01 7f 01"),               // leading nulls are written when values follow
        ([1, nil, nil], "7f 01 00 02"),
        ([1, nil, 2], "7f 01 00 01 7f 02"),      // a literal may follow a null run
        ([7, 7, nil, 7, 7], "02 07 00 01 02 07"),
        ([300, 300, 300], "03 ac 02"),
    ]

    @Test("values are encoded exactly as Rust encodes them", arguments: canonicalExamples)
    func canonicalEncoding(_ values: [UInt64?], _ expected: String) throws {
        #expect(encode(values) == bytesFromHex(expected))
        if !values.allSatisfy({ $0 == nil }) {
            #expect(try decode(bytesFromHex(expected)) == values)
        }
    }

    @Test("strings compare by bytes and round-trip")
    func strings() throws {
        let values: [String?] = ["a", "", nil, "boo", "boo"]
        let bytes: [UInt8] = RLEColumn.encode(values)
        #expect(bytes == bytesFromHex("7e 01 61 00 00 01 02 03 62 6f 6f"))
        #expect(try RLEColumn.decode(bytes[...], as: String.self, column: "s", check: .testCanonical) == values)
        // "é" precomposed and decomposed are different keys to Automerge.
        let accents: [String?] = ["\u{e9}", "e\u{301}"]
        let encoded: [UInt8] = RLEColumn.encode(accents)
        #expect(encoded.first == 0x7e, "two distinct literals, not a run")
    }

    @Test("invalid UTF-8 in a string column is rejected, not repaired")
    func invalidUTF8() {
        #expect(throws: LoadError.invalidUTF8(what: "s")) {
            try RLEColumn.decode(bytesFromHex("7f 02 c3 28")[...], as: String.self, column: "s", check: .testLenient)
        }
    }

    static let nonCanonical: [(String, String)] = [
        ("01 05", "repeat run with count < 2"),
        ("00 00", "null run with count 0"),
        ("7f 01 7f 02", "adjacent literal runs"),
        ("00 01 00 01", "adjacent null runs"),
        ("02 05 02 05", "adjacent repeat runs with same value"),
        ("7e 05 05", "literal has consecutive equal values"),
        ("02 05 7f 05", "boundary values match"),
        ("7f 05 02 05", "boundary values match"),
    ]

    @Test("canonical checking rejects what Rust's encoder never writes; lenient reading accepts it",
          arguments: nonCanonical)
    func nonCanonicalForms(_ bytes: String, _ reason: String) throws {
        #expect(throws: LoadError.nonCanonicalColumn(column: "test", reason: reason)) { try decode(bytesFromHex(bytes)) }
        _ = try decode(bytesFromHex(bytes), .testLenient)
    }

    @Test("a null run in a non-nullable column is non-canonical")
    func nullInNonNullable() {
        let check = ColumnCheck(canonical: true, nullable: false, limit: 100)
        #expect(throws: LoadError.nonCanonicalColumn(column: "test", reason: "null in non-nullable column")) {
            try decode(bytesFromHex("00 01"), check)
        }
    }

    @Test("overlong LEB128 inside column data is accepted, as hexane accepts it")
    func overlongInsideColumns() throws {
        #expect(try decode(bytesFromHex("83 00 85 00")) == [5, 5, 5])
    }

    @Test("a run longer than the row limit fails before allocating")
    func runBeyondLimit() {
        let check = ColumnCheck(canonical: false, nullable: true, limit: 1000)
        // 2^60 nulls, and 2^60 repeats of 1.
        #expect(throws: LoadError.tooManyRows(column: "test", limit: 1000)) {
            try decode(bytesFromHex("00 80 80 80 80 80 80 80 80 10"), check)
        }
        #expect(throws: LoadError.tooManyRows(column: "test", limit: 1000)) {
            try decode(bytesFromHex("80 80 80 80 80 80 80 80 10 01"), check)
        }
        #expect(throws: LoadError.tooManyRows(column: "test", limit: 1000)) {
            try decode(bytesFromHex("80 80 80 80 80 80 80 80 70 01"), check)  // a literal of 2^60 values
        }
    }

    @Test("a truncated literal run fails")
    func truncatedLiteral() {
        #expect(throws: LoadError.truncated(what: "test")) { try decode(bytesFromHex("7d 01 02")) }
    }

    @Test("random sequences round-trip and encode canonically")
    func randomRoundTrips() throws {
        var generator = StorageTestRandom(seed: 42)
        for _ in 0..<500 {
            let count = Int(generator.next() % 40)
            let values: [UInt64?] = (0..<count).map { _ in
                let r = generator.next() % 5
                return r == 0 ? nil : r % 3
            }
            let bytes = encode(values)
            if values.allSatisfy({ $0 == nil }) {
                #expect(bytes.isEmpty)
            } else {
                #expect(try decode(bytes) == values)
            }
        }
    }
}

@Suite("Delta columns")
struct DeltaColumnTests {
    @Test("the spec's example: [3,4,5,6,9,7,8]")
    func specExample() throws {
        let values: [Int64?] = [3, 4, 5, 6, 9, 7, 8]
        let bytes = DeltaColumn.encode(values)
        #expect(bytes == bytesFromHex("7f 03 03 01 7d 03 7e 01"))
        #expect(try WholeColumn.deltas(bytes[...], column: "d", check: .testCanonical) == values)
    }

    @Test("nulls pass through and do not reset the running value")
    func nulls() throws {
        let values: [Int64?] = [1, nil, 2]
        let bytes = DeltaColumn.encode(values)
        #expect(bytes == bytesFromHex("7f 01 00 01 7f 01"))
        #expect(try WholeColumn.deltas(bytes[...], column: "d", check: .testCanonical) == values)
    }

    @Test("extreme values round-trip (arithmetic wraps, as in Rust release builds)")
    func extremes() throws {
        let values: [Int64?] = [Int64.min, Int64.max, 0, Int64.min]
        #expect(try WholeColumn.deltas(DeltaColumn.encode(values)[...], column: "d", check: .testCanonical) == values)
    }
}

@Suite("Boolean columns")
struct BooleanColumnTests {
    static let examples: [([Bool], String)] = [
        ([], ""),
        ([false, false, false], "03"),
        ([true, true, false, false, false], "00 02 03"),
        ([true, true, false, true], "00 02 01 01"),
        ([false, true], "01 01"),
    ]

    @Test("booleans encode as alternating run lengths starting with false", arguments: examples)
    func encoding(_ values: [Bool], _ expected: String) throws {
        #expect(BooleanColumn.encode(values) == bytesFromHex(expected))
        #expect(try WholeColumn.booleans(bytesFromHex(expected)[...], column: "b", check: .testCanonical) == values)
    }

    @Test("the expand column is omitted when all false")
    func omitIfAllFalse() {
        #expect(BooleanColumn.encode([false, false], omitIfAllFalse: true).isEmpty)
        #expect(BooleanColumn.encode([false, true], omitIfAllFalse: true) == bytesFromHex("01 01"))
    }

    @Test("only the first count may be zero, and never the last", arguments: [
        ("00", "trailing zero-count run"), ("02 00 01", "zero count in non-first run"),
        ("01 00", "zero count in non-first run"),
    ])
    func nonCanonical(_ bytes: String, _ reason: String) throws {
        #expect(throws: LoadError.nonCanonicalColumn(column: "b", reason: reason)) {
            try WholeColumn.booleans(bytesFromHex(bytes)[...], column: "b", check: .testCanonical)
        }
        _ = try WholeColumn.booleans(bytesFromHex(bytes)[...], column: "b", check: .testLenient)
    }
}

@Suite("Value columns")
struct ValueColumnTests {
    static let values: [(Primitive, String, String)] = [
        (.null, "00", ""),
        (.bool(false), "01", ""),
        (.bool(true), "02", ""),
        (.uint(300), "23", "ac 02"),
        (.int(-1), "14", "7f"),
        (.f64(1.5), "85 01", "00 00 00 00 00 00 f8 3f"),
        (.string("hé"), "36", "68 c3 a9"),
        (.bytes([1, 2]), "27", "01 02"),
        (.counter(5), "18", "05"),
        (.timestamp(-2), "19", "7e"),
        (.unknown(typeCode: 12, bytes: [9, 9]), "2c", "09 09"),
    ]

    @Test("metadata is uLEB length << 4 | type code, with the value's bytes in the raw column",
          arguments: values)
    func encoding(_ value: Primitive, _ meta: String, _ raw: String) throws {
        let (metaBytes, rawBytes) = ValueColumn.encode([value])
        #expect(metaBytes == [0x7f] + bytesFromHex(meta))
        #expect(rawBytes == bytesFromHex(raw))
        let decoded = try WholeColumn.values(meta: metaBytes[...], raw: rawBytes[...], rows: 1, column: "v",
                                             check: .testCanonical)
        #expect(decoded == [value])
    }

    func decodeOne(meta: UInt64, raw: String) throws(LoadError) -> Primitive {
        var metaBytes: [UInt8] = [0x7f]
        LEB128.appendUnsigned(meta, to: &metaBytes)
        return try WholeColumn.values(meta: metaBytes[...], raw: bytesFromHex(raw)[...], rows: 1, column: "v",
                                      check: .testLenient)[0]
    }

    @Test("integers inside values are read strictly and must fill their length")
    func strictIntegers() throws {
        #expect(throws: LoadError.overlongLEB128(what: "v")) { try decodeOne(meta: 2 << 4 | 8, raw: "80 00") }
        #expect(throws: LoadError.invalidValue(column: "v", row: 0, reason: "extra bytes")) {
            try decodeOne(meta: 2 << 4 | 3, raw: "01 01")
        }
        #expect(throws: LoadError.truncated(what: "v")) { try decodeOne(meta: 0 << 4 | 4, raw: "") }
    }

    @Test("malformed values are rejected")
    func malformed() {
        #expect(throws: LoadError.invalidValue(column: "v", row: 0, reason: "float should have length 8, had 4")) {
            try decodeOne(meta: 4 << 4 | 5, raw: "00 00 00 00")
        }
        #expect(throws: LoadError.invalidUTF8(what: "v")) { try decodeOne(meta: 1 << 4 | 6, raw: "ff") }
        #expect(throws: LoadError.lengthPastEnd(what: "v raw", length: 1 << 56, remaining: 0)) {
            try decodeOne(meta: 1 << 60 | 7, raw: "")
        }
    }

    @Test("raw bytes nobody claims are rejected")
    func leftoverRawBytes() {
        #expect(throws: LoadError.columnLengthMismatch(column: "v raw", expected: 0, actual: 1)) {
            try decodeOne(meta: 0, raw: "01")
        }
    }

    @Test("a missing metadata column means nulls")
    func missingMeta() throws {
        #expect(try WholeColumn.values(meta: nil, raw: nil, rows: 2, column: "v", check: .testCanonical)
            == [.null, .null])
    }
}

/// A small deterministic generator for test inputs.
struct StorageTestRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

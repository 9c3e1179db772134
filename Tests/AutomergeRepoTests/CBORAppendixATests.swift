import Testing
@testable import AutomergeRepoProtocol

/// RFC 8949 Appendix A (Table 6): every example decodes to its value, and
/// every example written in preferred serialization encodes back to its bytes.
/// (The table as cbor/test-vectors' appendix_a.json holds it, checked against
/// the RFC; its `f818` example, simple(24), is from RFC 7049 and is not
/// well-formed under RFC 8949 §3.3: see the hostile-input tests.)
@Suite("CBOR: RFC 8949 Appendix A")
struct CBORAppendixATests {
    /// An example: its bytes, its value, and whether the bytes are the preferred serialization.
    struct Example: CustomTestStringConvertible, Sendable {
        let bytes: String
        let value: CBORValue
        let preferred: Bool
        var testDescription: String { bytes }

        init(_ bytes: String, _ value: CBORValue, preferred: Bool = true) {
            self.bytes = bytes
            self.value = value
            self.preferred = preferred
        }
    }

    static let integers: [Example] = [
        Example("00", .unsigned(0)), Example("01", .unsigned(1)), Example("0a", .unsigned(10)),
        Example("17", .unsigned(23)), Example("1818", .unsigned(24)), Example("1819", .unsigned(25)),
        Example("1864", .unsigned(100)), Example("1903e8", .unsigned(1000)), Example("1a000f4240", .unsigned(1_000_000)),
        Example("1b000000e8d4a51000", .unsigned(1_000_000_000_000)),
        Example("1bffffffffffffffff", .unsigned(.max)),
        Example("c249010000000000000000", .tagged(2, .byteString(hex("010000000000000000")))),
        Example("3bffffffffffffffff", .negative(.max)),
        Example("c349010000000000000000", .tagged(3, .byteString(hex("010000000000000000")))),
        Example("20", CBORValue(-1)), Example("29", CBORValue(-10)), Example("3863", CBORValue(-100)),
        Example("3903e7", CBORValue(-1000)),
    ]

    static let floats: [Example] = [
        Example("f90000", .float(0.0)), Example("f98000", .float(-0.0)), Example("f93c00", .float(1.0)),
        Example("fb3ff199999999999a", .float(1.1)), Example("f93e00", .float(1.5)), Example("f97bff", .float(65504.0)),
        Example("fa47c35000", .float(100000.0)), Example("fa7f7fffff", .float(3.4028234663852886e+38)),
        Example("fb7e37e43c8800759c", .float(1.0e+300)), Example("f90001", .float(5.960464477539063e-8)),
        Example("f90400", .float(0.00006103515625)), Example("f9c400", .float(-4.0)),
        Example("fbc010666666666666", .float(-4.1)),
        Example("f97c00", .float(.infinity)), Example("f9fc00", .float(-.infinity)),
        Example("fa7f800000", .float(.infinity), preferred: false),
        Example("faff800000", .float(-.infinity), preferred: false),
        Example("fb7ff0000000000000", .float(.infinity), preferred: false),
        Example("fbfff0000000000000", .float(-.infinity), preferred: false),
    ]

    static let simpleValues: [Example] = [
        Example("f4", .bool(false)), Example("f5", .bool(true)), Example("f6", .null), Example("f7", .undefined),
        Example("f0", .simple(CBORValue.SimpleValue(16)!)), Example("f8ff", .simple(CBORValue.SimpleValue(255)!)),
    ]

    static let tags: [Example] = [
        Example("c074323031332d30332d32315432303a30343a30305a", .tagged(0, text("2013-03-21T20:04:00Z"))),
        Example("c11a514b67b0", .tagged(1, .unsigned(1_363_896_240))),
        Example("c1fb41d452d9ec200000", .tagged(1, .float(1_363_896_240.5))),
        Example("d74401020304", .tagged(23, .byteString([1, 2, 3, 4]))),
        Example("d818456449455446", .tagged(24, .byteString(hex("6449455446")))),
        Example("d82076687474703a2f2f7777772e6578616d706c652e636f6d", .tagged(32, text("http://www.example.com"))),
    ]

    static let strings: [Example] = [
        Example("40", .byteString([])), Example("4401020304", .byteString([1, 2, 3, 4])),
        Example("60", text("")), Example("6161", text("a")), Example("6449455446", text("IETF")),
        Example("62225c", text("\"\\")), Example("62c3bc", text("\u{00fc}")), Example("63e6b0b4", text("\u{6c34}")),
        Example("64f0908591", text("\u{10151}")),
    ]

    static let containers: [Example] = [
        Example("80", .array([])), Example("83010203", uints(1...3)), Example("8301820203820405", nestedArray),
        Example("98190102030405060708090a0b0c0d0e0f101112131415161718181819", uints(1...25)),
        Example("a0", .map([])),
        Example("a201020304", .map([.init(.unsigned(1), .unsigned(2)), .init(.unsigned(3), .unsigned(4))])),
        Example("a26161016162820203", .map([.init(text("a"), .unsigned(1)), .init(text("b"), uints(2...3))])),
        Example("826161a161626163", .array([text("a"), .map([.init(text("b"), text("c"))])])),
        Example("a56161614161626142616361436164614461656145",
                .map(["a", "b", "c", "d", "e"].map { .init(text($0), text($0.uppercased())) })),
    ]

    static let indefiniteLength: [Example] = [
        Example("5f42010243030405ff", .byteString([1, 2, 3, 4, 5]), preferred: false),
        Example("7f657374726561646d696e67ff", text("streaming"), preferred: false),
        Example("9fff", .array([]), preferred: false),
        Example("9f018202039f0405ffff", nestedArray, preferred: false),
        Example("9f01820203820405ff", nestedArray, preferred: false),
        Example("83018202039f0405ff", nestedArray, preferred: false),
        Example("83019f0203ff820405", nestedArray, preferred: false),
        Example("9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff", uints(1...25), preferred: false),
        Example("bf61610161629f0203ffff", .map([.init(text("a"), .unsigned(1)), .init(text("b"), uints(2...3))]),
                preferred: false),
        Example("826161bf61626163ff", .array([text("a"), .map([.init(text("b"), text("c"))])]), preferred: false),
        Example("bf6346756ef563416d7421ff", .map([.init(text("Fun"), .bool(true)), .init(text("Amt"), CBORValue(-2))]),
                preferred: false),
    ]

    @Test("each example decodes to its value; preferred ones encode back to their bytes",
          arguments: integers + floats + simpleValues + tags + strings + containers + indefiniteLength)
    func example(_ example: Example) throws {
        let bytes = hex(example.bytes)
        #expect(try CBORValue.decode(bytes) == example.value)
        if example.preferred {
            #expect(hexString(example.value.encoded()) == example.bytes)
        }
        // Whatever the input's form, what we write is preferred and reads back the same.
        #expect(try CBORValue.decode(example.value.encoded()) == example.value)
    }

    @Test("NaN of every width decodes to NaN; it is written as the half-width f97e00",
          arguments: ["f97e00", "fa7fc00000", "fb7ff8000000000000"])
    func notANumber(_ bytes: String) throws {
        guard case .float(let number) = try CBORValue.decode(hex(bytes)) else {
            Issue.record("\(bytes) is not a float")
            return
        }
        #expect(number.isNaN)
        #expect(hexString(CBORValue.float(number).encoded()) == "f97e00")
    }

    @Test("floats take the shortest width that holds them exactly")
    func floatWidths() {
        #expect(hexString(CBORValue.float(65505).encoded()) == "fa477fe100", "beyond half precision's range")
        #expect(hexString(CBORValue.float(0x1p-24).encoded()) == "f90001", "half precision's smallest subnormal")
        #expect(hexString(CBORValue.float(0x1p-25).encoded()) == "fa33000000", "below it: single precision")
        #expect(hexString(CBORValue.float(1.0 / 3).encoded()) == "fb3fd5555555555555")
    }
}

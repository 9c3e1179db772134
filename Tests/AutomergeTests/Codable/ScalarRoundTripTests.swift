import Foundation
import Testing
@testable import Automerge

@Suite("Codable: scalar round trips")
struct CodableScalarRoundTripTests {
    private func check<T: Codable & Equatable>(_ values: [T]) throws {
        for value in values {
            #expect(try codableRoundTrip(CodableBox(value: value)) == CodableBox(value: value), "\(T.self) \(value)")
            #expect(try codableRoundTrip(CodableBox(value: [value, value])) == CodableBox(value: [value, value]), "[\(T.self)] \(value)")
        }
    }

    @Test func booleansAndStrings() throws {
        try check([true, false])
        try check(["", "plain", "emoji 👩‍👩‍👧 and combining e\u{301}", String(repeating: "x", count: 10_000), "nul\u{0}in"])
    }

    @Test func signedIntegersAtTheirExtremes() throws {
        try check([Int.min, -1, 0, 1, Int.max])
        try check([Int8.min, 0, Int8.max])
        try check([Int16.min, 0, Int16.max])
        try check([Int32.min, 0, Int32.max])
        try check([Int64.min, 0, Int64.max])
    }

    @Test func unsignedIntegersAtTheirExtremes() throws {
        try check([UInt.min, 1, UInt.max])
        try check([UInt8.min, UInt8.max])
        try check([UInt16.min, UInt16.max])
        try check([UInt32.min, UInt32.max])
        try check([UInt64.min, UInt64.max])
    }

    @Test func floatingPoint() throws {
        try check([0.0, -0.0, 1.5, -.pi, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                   .leastNonzeroMagnitude, .infinity, -.infinity] as [Double])
        try check([0, 1.25, .greatestFiniteMagnitude, .leastNonzeroMagnitude, -.infinity] as [Float])
        let nan = try codableRoundTrip(CodableBox(value: Double.nan))
        #expect(nan.value.isNaN)
    }

    @Test func dataAndDates() throws {
        try check([Data(), Data([0, 1, 2, 255]), Data(repeating: 7, count: 4096)])
        try check([Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_705_314_645.123),
                   Date(timeIntervalSince1970: -86_400.5), Date(timeIntervalSince1970: 253_402_300_799.999)])
    }

    @Test func dateKeepsMillisecondPrecision() throws {
        let precise = Date(timeIntervalSince1970: 1_705_314_645.123456)
        let decoded = try codableRoundTrip(CodableBox(value: precise)).value
        #expect(abs(decoded.timeIntervalSince(precise)) < 0.0005)
        #expect(decoded.timeIntervalSince1970 == 1_705_314_645.123)
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(CodableBox(value: precise))
        #expect(try doc.get(obj: .ROOT, key: "value") == .Scalar(.Timestamp(Date(timeIntervalSince1970: 1_705_314_645.123))))
    }

    @Test func urlIsAPlainString() throws {
        let url = URL(string: "https://example.com/a/b?q=1#frag")!
        try check([url, URL(string: "relative/path")!])
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(CodableBox(value: url))
        #expect(try doc.get(obj: .ROOT, key: "value") == .Scalar(.String("https://example.com/a/b?q=1#frag")))
    }

    @Test func uuidAndRawValues() throws {
        try check([UUID(), UUID()])
        enum Suit: String, Codable { case hearts, spades }
        enum Rank: Int, Codable { case ace = 1, king = 13 }
        try check([Suit.hearts, Suit.spades])
        try check([Rank.ace, Rank.king])
    }

    @Test func scalarConversionsAreChecked() {
        #expect(throws: Never.self) { try Int8.fromScalarValue(.Int(127)).get() }
        #expect(throws: IntScalarConversionError.self) { try Int8.fromScalarValue(.Int(128)).get() }
        #expect(throws: IntScalarConversionError.self) { try UInt8.fromScalarValue(.Int(-1)).get() }
        #expect(throws: IntScalarConversionError.self) { try Int.fromScalarValue(.String("1")).get() }
        #expect(throws: IntScalarConversionError.self) { try Int.fromScalarValue(.F64(1.5)).get() }
        #expect((try? Int.fromScalarValue(.Uint(5)).get()) == 5)
        #expect((try? Int64.fromScalarValue(.F64(42)).get()) == 42)
        #expect((try? Double.fromScalarValue(.Int(-3)).get()) == -3)
        #expect((try? Counter.fromScalarValue(.Counter(9)).get())?.value == 9)
        #expect(throws: CounterScalarConversionError.self) { try Counter.fromScalarValue(.Int(9)).get() }
        #expect(throws: URLScalarConversionError.self) { try URL.fromScalarValue(.Boolean(true)).get() }
        #expect(Int16(-2).toScalarValue() == .Int(-2))
        #expect(UInt16(2).toScalarValue() == .Uint(2))
        #expect(Float(0.5).toScalarValue() == .F64(0.5))
        #expect(Counter(3).toScalarValue() == .Counter(3))
    }

    @Test func customScalarValueRepresentableTypesAreStoredAsOneScalar() throws {
        struct Celsius: Codable, Equatable, ScalarValueRepresentable {
            var degrees: Double
            static func fromScalarValue(_ val: ScalarValue) -> Result<Celsius, FloatingPointScalarConversionError> {
                Double.fromScalarValue(val).map(Celsius.init(degrees:))
            }
            func toScalarValue() -> ScalarValue { .F64(degrees) }
        }
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(CodableBox(value: Celsius(degrees: 21.5)))
        #expect(try doc.get(obj: .ROOT, key: "value") == .Scalar(.F64(21.5)))
        #expect(try AutomergeDecoder(doc: doc).decode(CodableBox<Celsius>.self).value == Celsius(degrees: 21.5))
    }
}

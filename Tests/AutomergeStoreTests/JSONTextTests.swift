import Foundation
import AutomergeConformance
import Testing
@testable import AutomergeStore

/// Bodies as JSON text: integers and doubles keep their types through a
/// round trip, anything else JSON allows reads as Foundation reads it, and
/// anything it forbids is a typed error.
@Suite("JSON text")
struct JSONTextTests {
    @Test("values round-trip with their types, random values included")
    func roundTrip() throws {
        let fixed: [BodyValue] = [1, 1.0, -0.0, 1e20, 5e-324, 0.1, .int(.max), .int(.min), "a\"\\\n\u{01}é😀", [], [:],
                                  ["k": [1, 2.5, nil, true, ["x": "y"]]]]
        var random = SeededGenerator(seed: 5)
        let generated = (0..<300).map { _ in RandomSelector.value(&random) }
        for value in fixed + generated {
            #expect(try BodyJSON.decode(BodyJSON.encode(value)) == value, "\(value)")
        }
        #expect(String(decoding: try BodyJSON.encode(["b": 1.0, "a": [1]]), as: UTF8.self) == #"{"a":[1],"b":1.0}"#)
        #expect(throws: StoreError.invalidBody("numbers must be finite")) { try BodyJSON.encode(.double(.nan)) }
    }

    @Test("reads what JSONSerialization reads, numbers typed by their syntax")
    func agreesWithFoundation() throws {
        let texts = [#"{"a":1,"b":1.0,"c":1e2,"d":-0,"e":12345678901234567890}"#, #"[true,false,null," \u00e9\ud83d\ude00\/"]"#,
                     " \n[ 1 , [ ] , { } ]\t", #""\b\f\n\r\t""#, "0.5e-3"]
        for text in texts {
            let ours = try JSONText.read(Array(text.utf8))
            let foundation = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            #expect(String(describing: Self.plain(ours)) == String(describing: Self.plain(Self.body(foundation))), "\(text)")
        }
        #expect(try JSONText.read(Array("1.0".utf8)) == .double(1))
        #expect(try JSONText.read(Array("12345678901234567890".utf8)) == .double(12345678901234567890))
    }

    @Test("malformed text is a syntax error, deep nesting included")
    func malformed() {
        for text in ["", "{", "[1,]", "{\"a\"}", "01", "1.", "1e", "-", "tru", "\"\\x\"", "\"\\ud800\"", "\"a", "[1] 2",
                     "{\"a\":1,}", "\u{01}", "\"\u{01}\"", "1e999", String(repeating: "[", count: 600) + String(repeating: "]", count: 600)]
        {
            #expect(throws: JSONText.SyntaxError.self, "\(text.prefix(20))") { try JSONText.read(Array(text.utf8)) }
        }
    }

    /// Foundation's parse as a BodyValue (numbers as doubles: NSNumber hides the syntax).
    static func body(_ object: Any) -> BodyValue {
        switch object {
        case let number as NSNumber where String(cString: number.objCType) == "c": return .bool(number.boolValue)
        case let number as NSNumber: return .double(number.doubleValue)
        case let string as String: return .string(string)
        case let array as [Any]: return .list(array.map(body))
        case let map as [String: Any]: return .map(Dictionary(uniqueKeysWithValues: map.map { (ExactString($0.key), body($0.value)) }))
        default: return .null
        }
    }

    /// Numbers as doubles, to compare with Foundation's reading.
    static func plain(_ value: BodyValue) -> BodyValue {
        switch value {
        case .int(let number): return .double(Double(number))
        case .list(let elements): return .list(elements.map(plain))
        case .map(let entries): return .map(entries.mapValues(plain))
        default: return value
        }
    }
}

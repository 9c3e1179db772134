/// JSON text to and from ``BodyValue``, exact about numbers: a number
/// written without a fraction or exponent that fits 64 bits is an
/// ``BodyValue/int(_:)``, any other a ``BodyValue/double(_:)``, and a
/// double is always written with a fraction or exponent (`1.0`), so that a
/// value survives the round trip with its type (Foundation's coders read
/// `1.0` as an integer and write `1.0` as `1`).
enum JSONText {
    /// Deeper nesting is refused rather than recursed into.
    static let maximumDepth = 512

    /// A parse failure and where it happened.
    struct SyntaxError: Error, CustomStringConvertible {
        let description: String
    }

    // MARK: Writing

    /// Compact JSON, map keys sorted by code point.
    static func write(_ value: BodyValue) -> [UInt8] {
        var output: [UInt8] = []
        write(value, into: &output)
        return output
    }

    private static func write(_ value: BodyValue, into output: inout [UInt8]) {
        switch value {
        case .null: output += Array("null".utf8)
        case .bool(let flag): output += Array((flag ? "true" : "false").utf8)
        case .int(let number): output += Array(String(number).utf8)
        case .double(let number):
            var text = number.description
            if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { text += ".0" }
            output += Array(text.utf8)
        case .string(let string): writeString(string, into: &output)
        case .list(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .map(let entries):
            output.append(UInt8(ascii: "{"))
            for (index, key) in entries.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(entries[key]!, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ string: String, into output: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: output += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    // MARK: Reading

    /// The value `bytes` hold: one JSON value, with nothing but whitespace around it.
    static func read(_ bytes: some Collection<UInt8>) throws(SyntaxError) -> BodyValue {
        var reader = Reader(bytes: Array(bytes))
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.position == reader.bytes.count else { throw reader.error("unexpected text after the value") }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        func error(_ reason: String) -> SyntaxError { SyntaxError(description: "\(reason) at byte \(position)") }

        mutating func skipWhitespace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        mutating func value(depth: Int) throws(SyntaxError) -> BodyValue {
            guard depth < JSONText.maximumDepth else { throw error("nested deeper than \(JSONText.maximumDepth) levels") }
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end") }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try map(depth: depth)
            case UInt8(ascii: "["): return try list(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return try number()
            }
        }

        mutating func literal(_ word: String) throws(SyntaxError) {
            let expected = Array(word.utf8)
            guard bytes.count - position >= expected.count, Array(bytes[position..<position + expected.count]) == expected
            else { throw error("invalid literal") }
            position += expected.count
        }

        mutating func map(depth: Int) throws(SyntaxError) -> BodyValue {
            position += 1
            var entries: [String: BodyValue] = [:]
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .map(entries) }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a key") }
                let key = try string()
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
                position += 1
                entries[key] = try value(depth: depth + 1)
                skipWhitespace()
                guard position < bytes.count else { throw error("unterminated object") }
                position += 1
                if bytes[position - 1] == UInt8(ascii: "}") { return .map(entries) }
                guard bytes[position - 1] == UInt8(ascii: ",") else { throw error("expected ',' or '}'") }
            }
        }

        mutating func list(depth: Int) throws(SyntaxError) -> BodyValue {
            position += 1
            var elements: [BodyValue] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .list(elements) }
            while true {
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                guard position < bytes.count else { throw error("unterminated array") }
                position += 1
                if bytes[position - 1] == UInt8(ascii: "]") { return .list(elements) }
                guard bytes[position - 1] == UInt8(ascii: ",") else { throw error("expected ',' or ']'") }
            }
        }

        mutating func number() throws(SyntaxError) -> BodyValue {
            let start = position
            func digits() -> Int {
                let first = position
                while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
                return position - first
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            let integerStart = position
            guard digits() > 0 else { throw error("invalid value") }
            guard bytes[integerStart] != UInt8(ascii: "0") || position - integerStart == 1 else {
                throw error("leading zero in a number")
            }
            var integral = true
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                integral = false
                guard digits() > 0 else { throw error("digits expected after '.'") }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                position += 1
                integral = false
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                    position += 1
                }
                guard digits() > 0 else { throw error("digits expected in an exponent") }
            }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            if integral, let number = Int64(text) { return .int(number) }
            guard let number = Double(text), number.isFinite else { throw error("number out of range") }
            return .double(number)
        }

        mutating func string() throws(SyntaxError) -> String {
            position += 1
            var scalars = String.UnicodeScalarView()
            var run = position
            func flush(_ end: Int) { scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars) }
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    flush(position)
                    position += 1
                    return String(scalars)
                }
                guard byte >= 0x20 else { throw error("control character in a string") }
                if byte == UInt8(ascii: "\\") {
                    flush(position)
                    position += 1
                    scalars.append(try escape())
                    run = position
                } else {
                    position += 1
                }
            }
            throw error("unterminated string")
        }

        mutating func escape() throws(SyntaxError) -> Unicode.Scalar {
            guard position < bytes.count else { throw error("unterminated escape") }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let unit = try hexUnit()
                if (0xD800..<0xDC00).contains(unit) {
                    guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
                    else { throw error("unpaired surrogate") }
                    position += 2
                    let low = try hexUnit()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
                    return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
                }
                guard let scalar = Unicode.Scalar(unit) else { throw error("unpaired surrogate") }
                return scalar
            default:
                throw error("invalid escape")
            }
        }

        mutating func hexUnit() throws(SyntaxError) -> UInt32 {
            guard bytes.count - position >= 4,
                bytes[position..<position + 4].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
                let unit = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
            else { throw error("invalid \\u escape") }
            position += 4
            return unit
        }
    }
}

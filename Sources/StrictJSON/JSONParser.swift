/// A strict JSON parser (RFC 8259) producing ``JSONValue``: one value,
/// nothing but whitespace around it, numbers as the grammar spells them,
/// paired surrogates only, and nesting bounded (deeper input is refused
/// rather than recursed into). An object's keys are told apart by their
/// Unicode scalars, as written: a key written twice keeps its last value,
/// while keys that differ only in normalization are separate members.
public struct JSONParser {
    /// Why a text is not JSON.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let offset: Int
        public let reason: String
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    /// Deeper nesting is refused.
    public static let maximumDepth = 512

    private let bytes: [UInt8]
    private var index = 0

    /// Parses `text` as one JSON value.
    public static func parse(_ text: String) throws(Failure) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Parses UTF-8 bytes as one JSON value.
    public static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.failure("trailing characters") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func failure(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while let byte = current, [0x20, 0x0A, 0x0D, 0x09].contains(byte) { index += 1 }
    }

    private mutating func expect(_ literal: String) throws(Failure) {
        for byte in literal.utf8 {
            guard current == byte else { throw failure("expected \(literal)") }
            index += 1
        }
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth < Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth) levels") }
        skipSpace()
        guard let byte = current else { throw failure("unexpected end") }
        switch byte {
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "{"): return try object(depth: depth)
        default: return .number(try number())
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var values: [JSONValue] = []
        skipSpace()
        if current == UInt8(ascii: "]") { index += 1; return .array(values) }
        while true {
            values.append(try value(depth: depth + 1))
            skipSpace()
            switch current {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "]")?: index += 1; return .array(values)
            case nil: throw failure("unterminated array")
            default: throw failure("expected , or ]")
            }
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var members: [ExactString: JSONValue] = [:]
        skipSpace()
        if current == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipSpace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = ExactString(try string())
            skipSpace()
            try expect(":")
            members[key] = try value(depth: depth + 1)
            skipSpace()
            switch current {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "}")?: index += 1; return .object(members)
            case nil: throw failure("unterminated object")
            default: throw failure("expected , or }")
            }
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as written.
    private mutating func number() throws(Failure) -> String {
        let start = index
        func digits() -> Int {
            let first = index
            while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
            return index - first
        }
        if current == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        guard digits() > 0 else { throw failure("invalid value") }
        guard bytes[integerStart] != UInt8(ascii: "0") || index - integerStart == 1 else {
            throw failure("leading zero in a number")
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw failure("digits expected after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw failure("digits expected in an exponent") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func string() throws(Failure) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var run = index
        func flush(_ end: Int) { scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars) }
        while let byte = current {
            if byte == UInt8(ascii: "\"") {
                flush(index)
                index += 1
                return String(scalars)
            }
            guard byte >= 0x20 else { throw failure("control character in a string") }
            if byte == UInt8(ascii: "\\") {
                flush(index)
                index += 1
                scalars.append(try escape())
                run = index
            } else {
                index += 1
            }
        }
        throw failure("unterminated string")
    }

    private mutating func escape() throws(Failure) -> Unicode.Scalar {
        guard let byte = current else { throw failure("unterminated escape") }
        index += 1
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
            let unit = try hex4()
            if (0xD800..<0xDC00).contains(unit) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("unpaired surrogate")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("unpaired surrogate") }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(unit) else { throw failure("unpaired surrogate") }
            return scalar
        default:
            throw failure("invalid escape")
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("invalid \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { throw failure("invalid \\u escape") }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }
}

import StrictJSON

/// JSON text to and from ``BodyValue`` (through StrictJSON's parser and
/// writer), exact about numbers: a number written without a fraction or
/// exponent that fits 64 bits is an ``BodyValue/int(_:)``, any other a
/// ``BodyValue/double(_:)``, and a double is always written with a fraction
/// or exponent (`1.0`), so that a value survives the round trip with its
/// type (Foundation's coders read `1.0` as an integer and write `1.0` as `1`).
enum JSONText {
    /// Why a text cannot be read as a body value.
    struct SyntaxError: Error, CustomStringConvertible {
        let description: String
    }

    /// Compact JSON, map keys sorted by code point.
    static func write(_ value: BodyValue) -> [UInt8] { json(value).bytes }

    /// The value `bytes` hold: one JSON value, with nothing but whitespace around it.
    static func read(_ bytes: some Collection<UInt8>) throws(SyntaxError) -> BodyValue {
        let json: JSONValue
        do throws(JSONParser.Failure) {
            json = try JSONParser.parse(Array(bytes))
        } catch {
            throw SyntaxError(description: "\(error.reason) at byte \(error.offset)")
        }
        return try value(json)
    }

    private static func json(_ value: BodyValue) -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .number(String(number))
        case .double(let number):
            let text = number.description
            return .number(text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? text : text + ".0")
        case .string(let string): return .string(string)
        case .list(let elements): return .array(elements.map(json))
        case .map(let entries): return .object(JSONObject(entries.map { (key: $0.key.string, value: json($0.value)) }))
        }
    }

    private static func value(_ json: JSONValue) throws(SyntaxError) -> BodyValue {
        switch json {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let text):
            if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let number = Int64(text) { return .int(number) }
            guard let number = Double(text), number.isFinite else { throw SyntaxError(description: "number out of range: \(text)") }
            return .double(number)
        case .string(let string): return .string(string)
        case .array(let elements):
            var values: [BodyValue] = []
            values.reserveCapacity(elements.count)
            for element in elements { values.append(try value(element)) }
            return .list(values)
        case .object(let members):
            var entries: [ExactString: BodyValue] = [:]
            entries.reserveCapacity(members.count)
            for (key, member) in members { entries[ExactString(key)] = try value(member) }
            return .map(entries)
        }
    }
}

import Foundation

/// Comparing canonical dumps as JSON values, and explaining how they differ.
public enum JSONDiff {
    /// The dump in the form that is compared: numbers in one spelling
    /// (`1.0`, `1e0` and `1` are the same number) and text marks sorted by
    /// (name, start, end), as the dump format specifies.
    public static func normalized(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let text): return .number(canonicalNumber(text))
        case .array(let values): return .array(values.map(normalized))
        case .object(let object):
            var members = object.mapValues(normalized)
            if members["text"] != nil, case .array(let marks)? = members["marks"] {
                members["marks"] = .array(marks.sorted { markKey($0) < markKey($1) })
            }
            return .object(members)
        default: return value
        }
    }

    /// Whether two dumps are the same value.
    public static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
        normalized(a) == normalized(b)
    }

    /// A mark's sort key: its name's scalars, then start and end.
    private static func markKey(_ mark: JSONValue) -> ExactString {
        guard case .object(let m) = mark else { return ExactString("") }
        func number(_ key: String) -> String {
            guard case .number(let text)? = m[key] else { return "" }
            return String(repeating: "0", count: max(0, 20 - text.count)) + text
        }
        let name: String
        if case .string(let n)? = m["name"] { name = n } else { name = "" }
        return ExactString(name + "\u{0}" + number("start") + "\u{0}" + number("end"))
    }

    /// An integer's digits without leading zeros or `+`; other numbers via Decimal.
    static func canonicalNumber(_ text: String) -> String {
        var digits = Substring(text)
        var negative = false
        if digits.hasPrefix("-") { negative = true; digits = digits.dropFirst() }
        if !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
            let trimmed = digits.drop { $0 == "0" }
            if trimmed.isEmpty { return "0" }
            return (negative ? "-" : "") + trimmed
        }
        if let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) {
            return canonicalNumber(decimal.description)
        }
        return text
    }

    /// A readable description of the first differences (`limit` of them),
    /// each as a path and both values.
    public static func describe(expected: JSONValue, actual: JSONValue, limit: Int = 5) -> String {
        var lines: [String] = []
        collect(normalized(expected), normalized(actual), path: "$", into: &lines, limit: limit)
        return lines.isEmpty ? "(no difference)" : lines.joined(separator: "\n")
    }

    private static func collect(_ a: JSONValue, _ b: JSONValue, path: String, into lines: inout [String], limit: Int) {
        guard lines.count < limit, a != b else { return }
        switch (a, b) {
        case (.object(let x), .object(let y)):
            for key in Set((x.keys + y.keys).map { ExactString($0) }).sorted() {
                let child = path + "." + key.escaped
                switch (x[key.string], y[key.string]) {
                case (let u?, let v?): collect(u, v, path: child, into: &lines, limit: limit)
                case (let u?, nil): lines.append("\(child): expected \(short(u)), missing")
                case (nil, let v?): lines.append("\(child): unexpected \(short(v))")
                default: break
                }
                if lines.count >= limit { return }
            }
        case (.array(let x), .array(let y)):
            if x.count != y.count { lines.append("\(path): expected \(x.count) items, got \(y.count)") }
            for (index, (u, v)) in zip(x, y).enumerated() {
                collect(u, v, path: "\(path)[\(index)]", into: &lines, limit: limit)
                if lines.count >= limit { return }
            }
        default:
            var (expected, got) = (a.serialized, b.serialized)
            // Values that only differ in scalars that render alike ("é", "e\u{301}") are shown escaped.
            if expected == got { (expected, got) = (ExactString(expected).escaped, ExactString(got).escaped) }
            lines.append("\(path): expected \(short(expected)), got \(short(got))")
        }
    }

    private static func short(_ value: JSONValue) -> String { short(value.serialized) }

    private static func short(_ text: String) -> String {
        text.count > 120 ? String(text.prefix(117)) + "..." : text
    }
}

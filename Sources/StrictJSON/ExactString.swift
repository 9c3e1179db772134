/// A string that equals another only when their Unicode scalars are equal,
/// hashed and ordered by them too.
///
/// Swift's `String` compares and hashes by canonical equivalence, so that
/// "é" (U+00E9) and "e\u{301}" (U+0065 U+0301) are one dictionary key, one
/// set member and neither before the other, where JSON, JavaScript,
/// Automerge, SQLite and CouchDB see two strings. Map keys, field names and
/// ids that are data are held as this type wherever they are compared,
/// hashed or sorted. The order is the code points' (equally the UTF-8
/// bytes', SQLite's `BINARY` collation).
public struct ExactString: Hashable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The string itself.
    public var string: String

    /// The string `string`, compared by its scalars.
    public init(_ string: String) { self.string = string }

    /// A literal, as written (Swift keeps a literal's scalars as they are in the source).
    public init(stringLiteral value: String) { string = value }

    /// The string.
    public var description: String { string }

    /// Whether the two have the same Unicode scalars (the same UTF-8 bytes).
    public static func == (a: ExactString, b: ExactString) -> Bool {
        a.withUTF8 { x in b.withUTF8 { y in x.count == y.count && x.elementsEqual(y) } }
    }

    /// Whether `a`'s code points come before `b`'s, element by element (a prefix first).
    public static func < (a: ExactString, b: ExactString) -> Bool {
        a.withUTF8 { x in b.withUTF8 { y in x.lexicographicallyPrecedes(y) } }
    }

    /// Hashes the UTF-8 bytes and a terminator (0xFF, never a UTF-8 byte),
    /// so that consecutive strings in one hash stay apart.
    public func hash(into hasher: inout Hasher) {
        withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(0xFF as UInt8)
    }

    /// The text in printable ASCII: every other scalar written as `\u{HEX}`
    /// (`e\u{301}`) and a backslash doubled. Texts that only differ in
    /// scalars that look alike read differently, and as plain ASCII,
    /// `String ==` on two escaped texts compares their scalars.
    public var escaped: String {
        var out = ""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case " "..."~": out.unicodeScalars.append(scalar)
            default: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out
    }

    /// Runs `body` on the string's UTF-8 bytes (in place for a native string).
    private func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = string
        return copy.withUTF8(body)
    }
}

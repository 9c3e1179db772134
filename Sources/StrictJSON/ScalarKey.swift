/// A string that equals, hashes and orders by its Unicode scalars, for
/// keys and names whose identity is their exact text. Swift's `String ==`,
/// hashing and `<` treat canonically equivalent strings ("é" and
/// "e\u{301}") as one; JSON, Automerge and the sync protocols do not.
/// The order is that of the scalar values, which is also that of the
/// UTF-8 bytes.
public struct ScalarKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The text.
    public let string: String

    /// `string` as a key.
    public init(_ string: String) { self.string = string }

    /// Whether `a` and `b` hold the same scalars. Valid UTF-8 encodes each
    /// scalar sequence one way, so equal bytes are equal scalars.
    public static func == (a: ScalarKey, b: ScalarKey) -> Bool { a.string.utf8.elementsEqual(b.string.utf8) }

    /// Whether `a` comes before `b` in scalar (UTF-8 byte) order.
    public static func < (a: ScalarKey, b: ScalarKey) -> Bool {
        a.string.utf8.lexicographicallyPrecedes(b.string.utf8)
    }

    /// Hashes the UTF-8 bytes, which ``==`` compares.
    public func hash(into hasher: inout Hasher) {
        var text = string
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// The text itself.
    public var description: String { string }

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
}

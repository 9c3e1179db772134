/// A character class: ranges and the built-in classes, possibly negated.
struct RegexSet: Equatable, Sendable {
    enum Item: Equatable, Sendable {
        case range(UInt32, UInt32)
        /// `d`, `w` or `s`, negated for `D`, `W`, `S`.
        case builtin(Character, negated: Bool)
    }

    var items: [Item] = []
    var negated = false
    var caseInsensitive = false

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        var found = matches(scalar)
        if !found, caseInsensitive {
            found = matches(Self.lowercase(scalar)) || matches(Self.uppercase(scalar))
        }
        return found != negated
    }

    private func matches(_ scalar: Unicode.Scalar) -> Bool {
        items.contains { item in
            switch item {
            case .range(let low, let high): return (low...high).contains(scalar.value)
            case .builtin(let kind, let negated): return Self.builtin(kind, scalar) != negated
            }
        }
    }

    static func builtin(_ kind: Character, _ scalar: Unicode.Scalar) -> Bool {
        switch kind {
        case "d": return ("0"..."9").contains(scalar)
        case "w": return isWord(scalar)
        default: return [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}"].contains(scalar)
        }
    }

    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_"
    }

    static func lowercase(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let mapped = scalar.properties.lowercaseMapping.unicodeScalars
        return mapped.count == 1 ? mapped.first! : scalar
    }

    static func uppercase(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let mapped = scalar.properties.uppercaseMapping.unicodeScalars
        return mapped.count == 1 ? mapped.first! : scalar
    }
}

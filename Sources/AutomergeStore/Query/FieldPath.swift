/// A field named in a selector, sort or index: dotted notation into nested
/// maps (`pet.species`), `\.` for a dot inside a name. A numeric component
/// also indexes into a list (`tags.0`). Read scalar by scalar (a `.`
/// followed by a combining mark still separates), and two paths are the
/// same field when their components have the same scalars, however written.
struct FieldPath: Hashable, Sendable, CustomStringConvertible {
    /// The components, unescaped.
    let components: [ExactString]
    /// The path as written.
    let description: String

    /// The value itself (what `$elemMatch` operators apply to).
    static let itself = FieldPath(components: [], description: "")

    private init(components: [ExactString], description: String) {
        self.components = components
        self.description = description
    }

    /// - Throws: ``QueryError/invalidField(_:reason:)`` for an empty name or component.
    init(_ text: String) throws {
        var components: [String.UnicodeScalarView] = []
        var current = String.UnicodeScalarView()
        var escaped = false
        for scalar in text.unicodeScalars {
            if escaped {
                current.append(scalar)
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            } else if scalar == "." {
                components.append(current)
                current = String.UnicodeScalarView()
            } else {
                current.append(scalar)
            }
        }
        if escaped { current.append("\\") }
        components.append(current)
        guard !components.contains(where: \.isEmpty) else {
            throw QueryError.invalidField(text, reason: "a field name or a dotted component is empty")
        }
        self.components = components.map { ExactString(String($0)) }
        description = text
    }

    static func == (a: FieldPath, b: FieldPath) -> Bool { a.components == b.components }

    func hash(into hasher: inout Hasher) { hasher.combine(components) }

    /// The value at this path in `body`, nil when the path leads nowhere.
    /// `_id` and `_rev` are the document's id and revision.
    func value(in body: BodyValue) -> BodyValue? {
        var value = body
        for component in components {
            switch value {
            case .map(let entries):
                guard let next = entries[component] else { return nil }
                value = next
            case .list(let elements):
                let text = component.string
                guard let index = Int(text), elements.indices.contains(index), text.first != "+" else { return nil }
                value = elements[index]
            default:
                return nil
            }
        }
        return value
    }
}

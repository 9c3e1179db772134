/// A field named in a selector, sort or index: dotted notation into nested
/// maps (`pet.species`), `\.` for a dot inside a name. A numeric component
/// also indexes into a list (`tags.0`).
struct FieldPath: Hashable, Sendable, CustomStringConvertible {
    /// The components, unescaped.
    let components: [String]
    /// The path as written.
    let description: String

    /// The value itself (what `$elemMatch` operators apply to).
    static let itself = FieldPath(components: [], description: "")

    private init(components: [String], description: String) {
        self.components = components
        self.description = description
    }

    /// - Throws: ``QueryError/invalidField(_:reason:)`` for an empty name or component.
    init(_ text: String) throws {
        var components: [String] = []
        var current = ""
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "." {
                components.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if escaped { current.append("\\") }
        components.append(current)
        guard !components.contains(where: \.isEmpty) else {
            throw QueryError.invalidField(text, reason: "a field name or a dotted component is empty")
        }
        self.components = components
        description = text
    }

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
                guard let index = Int(component), elements.indices.contains(index), component.first != "+" else { return nil }
                value = elements[index]
            default:
                return nil
            }
        }
        return value
    }
}

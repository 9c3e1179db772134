/// A step from a value to one inside it: a map key or a list index.
/// Keys compare by their Unicode scalars (see `ExactString`).
public enum BodyPath: Hashable, Sendable {
    case key(String)
    case index(Int)

    /// Whether the two are the same step: keys by their scalars.
    public static func == (a: BodyPath, b: BodyPath) -> Bool {
        switch (a, b) {
        case (.key(let x), .key(let y)): return ExactString(x) == ExactString(y)
        case (.index(let x), .index(let y)): return x == y
        default: return false
        }
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .key(let key): hasher.combine(0 as UInt8); hasher.combine(ExactString(key))
        case .index(let index): hasher.combine(1 as UInt8); hasher.combine(index)
        }
    }
}

extension BodyValue {
    /// The value at `path` below this one, nil where the path leads nowhere.
    public func value(at path: [BodyPath]) -> BodyValue? {
        var value = self
        for step in path {
            switch step {
            case .key(let key): guard let next = value[key] else { return nil }; value = next
            case .index(let index): guard let next = value[index] else { return nil }; value = next
            }
        }
        return value
    }

    /// Sets the value at `path`, if everything above it exists.
    mutating func set(_ newValue: BodyValue, at path: [BodyPath]) {
        guard let step = path.first else {
            self = newValue
            return
        }
        let rest = Array(path.dropFirst())
        switch (step, self) {
        case (.key(let key), .map(var entries)):
            let key = ExactString(key)
            guard rest.isEmpty || entries[key] != nil else { return }
            var child = entries[key] ?? .null
            child.set(newValue, at: rest)
            entries[key] = child
            self = .map(entries)
        case (.index(let index), .list(var elements)) where elements.indices.contains(index):
            elements[index].set(newValue, at: rest)
            self = .list(elements)
        default:
            return
        }
    }
}

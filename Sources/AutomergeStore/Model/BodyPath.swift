/// A step from a value to one inside it: a map key or a list index.
public enum BodyPath: Hashable, Sendable {
    case key(String)
    case index(Int)
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

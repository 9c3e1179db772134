/// The model as the encoder captured it, before it is compared with the
/// document: a tree of scalars, maps, lists and bound types.
enum EncodedValue {
    /// A primitive value.
    case scalar(ScalarValue)
    /// A keyed container.
    case map(EncodedMap)
    /// An unkeyed container.
    case list(EncodedList)
    /// An ``AutomergeText``: a Text object.
    case text(AutomergeText)
    /// A ``Counter``: a counter scalar.
    case counter(Counter)
    /// A value written through a `superEncoder`, read once encoding is done.
    case deferred(AutomergeEncoderImpl)

    /// The value with every `superEncoder` slot at this level filled in.
    var resolved: EncodedValue {
        if case .deferred(let encoder) = self { return encoder.storage?.resolved ?? .map(EncodedMap()) }
        return self
    }

    /// The kind of document value this becomes, for messages and schema checks.
    var kindName: String {
        switch resolved {
        case .scalar(let scalar): return "scalar \(scalar)"
        case .map: return "Map"
        case .list: return "List"
        case .text: return "Text"
        case .counter: return "counter"
        case .deferred: return "value"
        }
    }

    /// Whether the value is or contains an object (map, list or text).
    var containsObject: Bool {
        switch resolved {
        case .scalar, .counter, .deferred: return false
        case .map, .list, .text: return true
        }
    }

    /// Whether the value holds an ``AutomergeText`` or ``Counter`` that
    /// encoding must bind, even when the document already matches.
    var containsBoundTypes: Bool {
        switch resolved {
        case .scalar, .deferred: return false
        case .text, .counter: return true
        case .map(let map): return map.values.values.contains { $0.containsBoundTypes }
        case .list(let list): return list.items.contains { $0.containsBoundTypes }
        }
    }
}

/// A keyed container's contents, in the order the model wrote its keys.
final class EncodedMap {
    private(set) var keys: [String] = []
    private(set) var values: [String: EncodedValue] = [:]

    /// Sets `key`, keeping its first position if it was written before.
    func set(_ key: String, _ value: EncodedValue) {
        if values.updateValue(value, forKey: key) == nil { keys.append(key) }
    }

    /// The entries in write order.
    var entries: [(key: String, value: EncodedValue)] {
        keys.map { ($0, values[$0]!.resolved) }
    }
}

/// An unkeyed container's contents.
final class EncodedList {
    var items: [EncodedValue] = []

    /// The items with `superEncoder` slots filled in.
    var resolvedItems: [EncodedValue] { items.map(\.resolved) }
}

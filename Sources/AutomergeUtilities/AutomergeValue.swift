import Automerge

/// A document's contents as a plain tree, as ``Automerge/Document/schema()`` reads them.
///
/// Conflicts are resolved to the value a read returns (the winner), text
/// becomes its string and counters their current scalar.
public enum AutomergeValue: Hashable, Equatable {
    /// A map, by key.
    case dict([String: AutomergeValue])
    /// A list, in order.
    case array([AutomergeValue])
    /// A Text object's string.
    case text(String)
    /// A scalar.
    case scalar(ScalarValue)
}

extension AutomergeValue: CustomStringConvertible {
    /// `{...}` around a map's entries, `[...]` around a list's items,
    /// `T{...}` around text, and a scalar's own description.
    public var description: String {
        switch self {
        case .dict(let entries): "{\(entries.description)}"
        case .array(let items): "[\(items.description)]"
        case .text(let string): "T{\(string)}"
        case .scalar(let value): value.description
        }
    }
}

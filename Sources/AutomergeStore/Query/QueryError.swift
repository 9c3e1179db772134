/// What a query or index call can fail with, naming the offending part.
public enum QueryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A selector that is not well formed: `path` locates the offending
    /// part (`$or[1].age.$gt`), `reason` says what is wrong.
    case invalidSelector(path: String, reason: String)
    /// A field name that cannot be used.
    case invalidField(String, reason: String)
    /// A sort that is not well formed, or on fields no single index holds.
    case invalidSort(String)
    /// An index definition that cannot be made: no fields, a second text
    /// index, a name in use with another definition, a bad name.
    case invalidIndex(String)
    /// No index with this name.
    case indexNotFound(String)
    /// A `$text` query on a datastore without a text index.
    case noTextIndex

    public var description: String {
        switch self {
        case .invalidSelector(let path, let reason): return "invalid selector at \(path.isEmpty ? "the top" : path): \(reason)"
        case .invalidField(let field, let reason): return "invalid field '\(field)': \(reason)"
        case .invalidSort(let reason): return "invalid sort: \(reason)"
        case .invalidIndex(let reason): return "invalid index: \(reason)"
        case .indexNotFound(let name): return "no index named '\(name)'"
        case .noTextIndex: return "a $text query needs a text index (ensureIndexed(fields:name:type: .text))"
        }
    }
}

/// How ``AutomergeEncoder`` treats the schema (the maps, lists and text
/// objects) already in a document.
public enum SchemaStrategy: Sendable, Hashable {
    /// Creates maps, lists and text objects that are missing; throws
    /// ``CodingKeyLookupError/MismatchedSchema(_:)`` where the document holds
    /// a different kind of value than the model needs. The default.
    case createWhenNeeded

    /// Replaces whatever the document holds where it does not match the model:
    /// missing or mismatched objects are (re)created. Objects that already match
    /// are kept and updated in place.
    case override

    /// Never creates, replaces or deletes an object; only scalar values are
    /// written. A model that needs a missing object throws
    /// ``CodingKeyLookupError/SchemaMissing(_:)``.
    case readonly
}

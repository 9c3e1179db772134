/// A parsed Cloudant Query selector: which documents a `find` returns.
///
/// Arrays follow Cloudant's semantics: a condition on a field that holds an
/// array holds when it holds for the whole array or for any element.
/// Negations (`$not`, `$ne`, `$nin`, `$nor`) are complements: they match
/// every document the positive form does not, documents without the field
/// included.
indirect enum Selector: Equatable, Sendable {
    /// Every document (`{}`).
    case all
    case and([Selector])
    case or([Selector])
    case not(Selector)
    /// A condition on the value at a field.
    case field(FieldPath, Condition)
    /// A full-text search of the text index.
    case text(String)
}

/// A condition on one field's value.
indirect enum Condition: Equatable, Sendable {
    case equal(BodyValue)
    case less(BodyValue, orEqual: Bool)
    case greater(BodyValue, orEqual: Bool)
    case exists(Bool)
    case `in`([BodyValue])
    case size(Int)
    case mod(divisor: Int64, remainder: Int64)
    case regex(LinearRegex)
    /// The field is an array with an element matching the selector (run on the element).
    case elemMatch(Selector)
    /// The field is an array holding each of these values (or a value equal to the single one).
    case all([BodyValue])
    /// Conditions that must all hold.
    case and([Condition])
    /// The complement of a condition: documents without the field match.
    case not(Condition)
}

/// Decides whether a document matches a selector, by Cloudant's rules (see
/// ``Selector``). `find` runs it on every candidate an index yields, so an
/// index only ever narrows the search and never decides a match.
struct SelectorMatcher {
    /// Whether the document with this id matches a `$text` search (from the text index).
    var textMatches: (ExactString) -> Bool = { _ in false }

    /// Whether `document` (a body with `_id` and `_rev` added) matches.
    func matches(_ selector: Selector, _ document: BodyValue) -> Bool {
        switch selector {
        case .all: return true
        case .and(let selectors): return selectors.allSatisfy { matches($0, document) }
        case .or(let selectors): return selectors.contains { matches($0, document) }
        case .not(let selector): return !matches(selector, document)
        case .field(let path, let condition): return holds(condition, path.value(in: document))
        case .text: return document["_id"]?.stringValue.map { textMatches(ExactString($0)) } ?? false
        }
    }

    /// Whether `condition` holds for a field's value (nil: the field is missing).
    func holds(_ condition: Condition, _ value: BodyValue?) -> Bool {
        switch condition {
        case .exists(let exists): return (value != nil) == exists
        case .not(let inner): return !holds(inner, value)
        case .and(let conditions): return conditions.allSatisfy { holds($0, value) }
        default:
            guard let value else { return false }
            if holdsFor(condition, value) { return true }
            guard case .list(let elements) = value, Self.appliesToElements(condition) else { return false }
            return elements.contains { holdsFor(condition, $0) }
        }
    }

    /// Conditions that also hold for an array when they hold for one of its elements.
    static func appliesToElements(_ condition: Condition) -> Bool {
        switch condition {
        case .equal, .less, .greater, .in, .mod, .regex: return true
        case .exists, .size, .elemMatch, .all, .and, .not: return false
        }
    }

    /// Whether `condition` holds for `value` itself.
    private func holdsFor(_ condition: Condition, _ value: BodyValue) -> Bool {
        switch condition {
        case .equal(let operand): return Collation.compare(value, operand) == 0
        case .less(let operand, let orEqual):
            let order = Collation.compare(value, operand)
            return order < 0 || (orEqual && order == 0)
        case .greater(let operand, let orEqual):
            let order = Collation.compare(value, operand)
            return order > 0 || (orEqual && order == 0)
        case .in(let operands): return operands.contains { Collation.compare(value, $0) == 0 }
        case .size(let size):
            if case .list(let elements) = value { return elements.count == size }
            return false
        case .mod(let divisor, let remainder):
            guard case .int(let number) = value else { return false }
            return number.remainderReportingOverflow(dividingBy: divisor).partialValue == remainder
        case .regex(let regex):
            guard case .string(let string) = value else { return false }
            return regex.firstMatch(in: string)
        case .elemMatch(let selector):
            guard case .list(let elements) = value else { return false }
            return elements.contains { matches(selector, $0) }
        case .all(let operands):
            guard case .list(let elements) = value, !operands.isEmpty else { return false }
            return operands.allSatisfy { operand in elements.contains { Collation.compare($0, operand) == 0 } }
        case .exists, .and, .not:
            return holds(condition, value)
        }
    }
}

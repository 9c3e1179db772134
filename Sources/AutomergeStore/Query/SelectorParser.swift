/// Reads a selector written as a JSON-like value (Swift literals or JSON
/// text decoded by ``BodyJSON``), checking every operator and operand.
/// Keys are read by their scalars: an operator is a key whose first scalar
/// is `$`, spelled exactly as Cloudant spells it.
struct SelectorParser {
    /// Nesting deeper than this is refused rather than recursed into.
    static let maximumDepth = 64

    /// - Throws: ``QueryError/invalidSelector(path:reason:)`` naming the offending part.
    static func parse(_ value: BodyValue) throws -> Selector {
        try SelectorParser().selector(value, path: "", depth: 0)
    }

    private func fail(_ path: String, _ reason: String) -> QueryError {
        .invalidSelector(path: path, reason: reason)
    }

    private func join(_ path: String, _ key: ExactString) -> String { path.isEmpty ? key.string : path + "." + key.string }

    private static func isOperator(_ key: ExactString) -> Bool { key.string.unicodeScalars.first == "$" }

    /// A selector: a map of combination operators and fields, implicitly and-ed.
    func selector(_ value: BodyValue, path: String, depth: Int) throws -> Selector {
        guard depth < Self.maximumDepth else { throw fail(path, "nested deeper than \(Self.maximumDepth) levels") }
        guard case .map(let entries) = value else { throw fail(path, "a selector is a map") }
        let parts = try entries.sorted(by: { $0.key < $1.key }).map { key, value in
            try clause(key, value, path: join(path, key), depth: depth + 1)
        }
        return parts.isEmpty ? .all : parts.count == 1 ? parts[0] : .and(parts)
    }

    private func clause(_ key: ExactString, _ value: BodyValue, path: String, depth: Int) throws -> Selector {
        switch key {
        case "$and", "$or", "$nor":
            guard case .list(let elements) = value, !elements.isEmpty else {
                throw fail(path, "\(key) takes a non-empty array of selectors")
            }
            let selectors = try elements.enumerated().map { index, element in
                try selector(element, path: path + "[\(index)]", depth: depth)
            }
            return key == "$and" ? .and(selectors) : key == "$or" ? .or(selectors) : .not(.or(selectors))
        case "$not":
            return .not(try selector(value, path: path, depth: depth))
        case "$text":
            guard case .string(let query) = value else { throw fail(path, "$text takes a string") }
            return .text(query)
        case _ where Self.isOperator(key):
            throw fail(path, "unknown operator '\(key)'")
        default:
            return try field(try FieldPath(key.string), value, path: path, depth: depth)
        }
    }

    /// A field's clause: a value (implicit `$eq`), a map of operators, or a
    /// map of sub-fields (`{"pet": {"species": "cat"}}` is `pet.species`).
    private func field(_ field: FieldPath, _ value: BodyValue, path: String, depth: Int) throws -> Selector {
        guard depth < Self.maximumDepth else { throw fail(path, "nested deeper than \(Self.maximumDepth) levels") }
        guard case .map(let entries) = value, !entries.isEmpty else { return .field(field, .equal(try literal(value, path))) }
        let operators = entries.keys.filter(Self.isOperator)
        guard operators.isEmpty || operators.count == entries.count else {
            throw fail(path, "mixes operators and field names")
        }
        if operators.isEmpty {
            let parts = try entries.sorted(by: { $0.key < $1.key }).map { key, value in
                try self.field(try FieldPath(field.description + "." + key.string), value, path: join(path, key), depth: depth + 1)
            }
            return parts.count == 1 ? parts[0] : .and(parts)
        }
        return .field(field, try conditions(entries, path: path, depth: depth))
    }

    /// A map of operators, implicitly and-ed.
    func conditions(_ entries: [ExactString: BodyValue], path: String, depth: Int) throws -> Condition {
        let parts = try entries.sorted(by: { $0.key < $1.key }).map { key, value in
            try condition(key, value, path: join(path, key), depth: depth + 1)
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private func condition(_ op: ExactString, _ operand: BodyValue, path: String, depth: Int) throws -> Condition {
        guard depth < Self.maximumDepth else { throw fail(path, "nested deeper than \(Self.maximumDepth) levels") }
        switch op {
        case "$eq": return .equal(try literal(operand, path))
        case "$ne": return .not(.equal(try literal(operand, path)))
        case "$lt": return .less(try literal(operand, path), orEqual: false)
        case "$lte": return .less(try literal(operand, path), orEqual: true)
        case "$gt": return .greater(try literal(operand, path), orEqual: false)
        case "$gte": return .greater(try literal(operand, path), orEqual: true)
        case "$exists":
            guard case .bool(let exists) = operand else { throw fail(path, "$exists takes true or false") }
            return .exists(exists)
        case "$in", "$nin", "$all":
            guard case .list(let values) = operand else { throw fail(path, "\(op) takes an array") }
            _ = try literal(operand, path)
            return op == "$in" ? .in(values) : op == "$nin" ? .not(.in(values)) : .all(values)
        case "$size":
            guard case .int(let size) = operand, size >= 0, size <= Int.max else {
                throw fail(path, "$size takes a non-negative integer")
            }
            return .size(Int(size))
        case "$mod":
            guard case .list(let pair) = operand, pair.count == 2, case .int(let divisor) = pair[0],
                case .int(let remainder) = pair[1]
            else { throw fail(path, "$mod takes [divisor, remainder], two integers") }
            guard divisor != 0 else { throw fail(path, "$mod's divisor is 0") }
            return .mod(divisor: divisor, remainder: remainder)
        case "$regex":
            guard case .string(let pattern) = operand else { throw fail(path, "$regex takes a string") }
            do {
                return .regex(try LinearRegex(pattern))
            } catch let error as LinearRegex.SyntaxError {
                throw fail(path, "\(error)")
            }
        case "$elemMatch":
            return .elemMatch(try elementSelector(operand, path: path, depth: depth))
        case "$not":
            guard case .map(let entries) = operand, !entries.isEmpty, entries.keys.allSatisfy(Self.isOperator) else {
                throw fail(path, "$not on a field takes a map of operators")
            }
            return .not(try conditions(entries, path: path, depth: depth))
        default:
            throw fail(path, "unknown operator '\(op)'")
        }
    }

    /// `$elemMatch`'s operand: operators on the element itself
    /// (`{"$gt": 3}`) or a selector on its fields (`{"name": "x"}`).
    private func elementSelector(_ operand: BodyValue, path: String, depth: Int) throws -> Selector {
        guard case .map(let entries) = operand, !entries.isEmpty else { throw fail(path, "$elemMatch takes a non-empty map") }
        let combinations: Set<ExactString> = ["$and", "$or", "$nor", "$not", "$text"]
        if entries.keys.allSatisfy({ Self.isOperator($0) && !combinations.contains($0) }) {
            return .field(.itself, try conditions(entries, path: path, depth: depth))
        }
        return try selector(operand, path: path, depth: depth)
    }

    /// An operand value: any JSON value with finite numbers.
    private func literal(_ value: BodyValue, _ path: String) throws -> BodyValue {
        do {
            _ = try StoredLayout.validate(.map(["value": value]))
        } catch {
            throw fail(path, "numbers must be finite")
        }
        return value
    }
}

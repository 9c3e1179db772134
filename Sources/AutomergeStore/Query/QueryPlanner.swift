import GRDB

/// The documents a query must look at: the ids an SQL statement over the
/// indexes yields, or (`sql` nil) every document.
struct QueryPlan: Sendable {
    /// `SELECT docId ...`, nil for a scan of every document.
    var sql: String?
    var arguments: [DatabaseValue] = []
    /// The indexes the statement reads, by name.
    var indexes: [String] = []
}

/// Turns a selector into the SQL that finds a superset of its matches from
/// the JSON indexes' leading fields (and `_id`). Only conditions that hold
/// for present values only (comparisons, `$in`, `$exists: true`, ...) can
/// narrow; negations, and `$or`s with a branch no index covers, leave a
/// scan. The matcher then decides every candidate, so a plan never has to
/// be exact, only never to miss.
struct QueryPlanner {
    /// JSON indexes by their leading field.
    let indexes: [FieldPath: IndexDefinition]
    /// The text index, if any.
    let textIndex: IndexDefinition?

    func plan(_ selector: Selector) -> QueryPlan {
        candidates(selector) ?? QueryPlan()
    }

    private func candidates(_ selector: Selector) -> QueryPlan? {
        switch selector {
        case .field(let path, let condition):
            return candidates(path, condition)
        case .and(let parts):
            let plans = parts.compactMap(candidates)
            return plans.isEmpty ? nil : combine(plans, with: "INTERSECT")
        case .or(let parts):
            let plans = parts.map(candidates)
            guard plans.allSatisfy({ $0 != nil }) else { return nil }
            return combine(plans.map { $0! }, with: "UNION")
        case .text(let query):
            guard let textIndex else { return nil }
            return QueryPlan(sql: textIndex.textSearchSQL, arguments: [query.databaseValue], indexes: [textIndex.name])
        case .all, .not:
            return nil
        }
    }

    /// More parts than this, or more bound values, and a query scans
    /// instead: SQLite bounds compound selects (500) and variables.
    static let maximumParts = 100
    static let maximumArguments = 1000

    private func combine(_ plans: [QueryPlan], with operation: String) -> QueryPlan? {
        guard plans.count > 1 else { return plans[0] }
        guard plans.count <= Self.maximumParts, plans.map(\.arguments.count).reduce(0, +) <= Self.maximumArguments else {
            // An intersection may keep any one part; a union needs them all.
            return operation == "INTERSECT" ? plans[0] : nil
        }
        var names: [String] = []
        for name in plans.flatMap(\.indexes) where !names.contains(name) { names.append(name) }
        return QueryPlan(sql: plans.map { "SELECT docId FROM (\($0.sql!))" }.joined(separator: " \(operation) "),
                         arguments: plans.flatMap(\.arguments), indexes: names)
    }

    private func candidates(_ path: FieldPath, _ condition: Condition) -> QueryPlan? {
        if path.components == ["_id"] { return idCandidates(condition) }
        // Each condition on its own rows: an array's elements may meet them one each.
        if case .and(let conditions) = condition {
            let plans = conditions.compactMap { candidates(path, $0) }
            return plans.isEmpty ? nil : combine(plans, with: "INTERSECT")
        }
        guard let index = indexes[path], let (clause, arguments) = rows(matching: condition) else { return nil }
        return QueryPlan(sql: "SELECT docId FROM \(index.table) WHERE \(clause)", arguments: arguments, indexes: [index.name])
    }

    /// `_id` conditions read the documents table itself.
    private func idCandidates(_ condition: Condition) -> QueryPlan? {
        let ids: [BodyValue]
        switch condition {
        case .equal(let value): ids = [value]
        case .in(let values): ids = values
        default: return nil
        }
        let strings = ids.compactMap(\.stringValue)
        guard strings.count <= Self.maximumArguments else { return nil }
        guard !strings.isEmpty else { return QueryPlan(sql: "SELECT docId FROM documents WHERE 0", indexes: ["_id"]) }
        let placeholders = Array(repeating: "?", count: strings.count).joined(separator: ", ")
        return QueryPlan(sql: "SELECT docId FROM documents WHERE docId IN (\(placeholders))",
                         arguments: strings.map(\.databaseValue), indexes: ["_id"])
    }

    /// The rows (`rank`, `value`) a condition can hold for, or nil when it
    /// can hold for a missing field too.
    private func rows(matching condition: Condition) -> (String, [DatabaseValue])? {
        switch condition {
        case .equal(let operand):
            return equal(operand)
        case .in(let operands):
            guard !operands.isEmpty else { return ("0", []) }
            guard operands.count <= Self.maximumArguments else { return nil }
            // One IN list per rank that has values, one rank test for the rest.
            var byRank: [Int: [DatabaseValue]] = [:]
            for operand in operands { byRank[Collation.rank(operand), default: []].append(IndexDefinition.sqlValue(operand)) }
            let clauses = byRank.keys.sorted().map { rank -> (String, [DatabaseValue]) in
                let values = byRank[rank]!.filter { !$0.isNull }
                guard !values.isEmpty else { return ("rank = \(rank)", []) }
                return ("(rank = \(rank) AND value IN (\(Array(repeating: "?", count: values.count).joined(separator: ", "))))", values)
            }
            return (clauses.map(\.0).joined(separator: " OR "), clauses.flatMap(\.1))
        case .less(let operand, let orEqual):
            return compare(operand, orEqual: orEqual, below: true)
        case .greater(let operand, let orEqual):
            return compare(operand, orEqual: orEqual, below: false)
        case .exists(true):
            return ("rank IS NOT NULL", [])
        case .mod:
            return ("rank = 3", [])
        case .regex:
            return ("rank = 4", [])
        case .size, .elemMatch, .all:
            return ("rank = 5", [])
        case .exists(false), .not, .and:
            return nil
        }
    }

    private func equal(_ operand: BodyValue) -> (String, [DatabaseValue]) {
        let rank = Collation.rank(operand)
        let value = IndexDefinition.sqlValue(operand)
        return value.isNull ? ("rank = \(rank)", []) : ("rank = \(rank) AND value = ?", [value])
    }

    private func compare(_ operand: BodyValue, orEqual: Bool, below: Bool) -> (String, [DatabaseValue]) {
        let rank = Collation.rank(operand)
        let value = IndexDefinition.sqlValue(operand)
        let across = below ? "rank < \(rank)" : "rank > \(rank)"
        guard !value.isNull else { return ("rank IS NOT NULL AND (\(across) OR rank = \(rank))", []) }
        let within = (below ? "<" : ">") + (orEqual ? "=" : "")
        return ("rank IS NOT NULL AND (\(across) OR (rank = \(rank) AND value \(within) ?))", [value])
    }
}

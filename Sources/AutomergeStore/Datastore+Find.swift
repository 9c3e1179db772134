import Automerge
import Foundation
import GRDB

/// How ``Datastore/find(_:skip:limit:fields:sort:)`` would run a query.
public struct QueryExplanation: Equatable, Sendable {
    /// The indexes that narrow the search (`_id` for the document ids),
    /// empty when every document is examined.
    public let indexes: [String]
    /// Whether every document is examined.
    public var scansEveryDocument: Bool { indexes.isEmpty }
}

extension Datastore {
    /// The documents matching a Cloudant Query selector (see `Selector`
    /// for the semantics), ordered by `sort` (fields one JSON index holds)
    /// or else by id, after skipping `skip` and keeping at most `limit`
    /// (0: all). With `fields`, each revision's body holds only those
    /// top-level fields (and no attachments).
    ///
    /// Indexes are brought up to date first; every candidate they yield is
    /// checked against its current revision, so a result is never stale.
    /// - Throws: ``QueryError`` naming what is wrong with the selector,
    ///   sort or fields; storage errors.
    public func find(_ selector: BodyValue, skip: Int = 0, limit: Int = 0, fields: [String]? = nil,
                     sort: [SortField] = []) throws -> [DocumentRevision]
    {
        let parsed = try SelectorParser.parse(selector)
        let projection = try fields.map(Self.projection)
        let query = { (db: GRDB.Database) in
            try self.run(parsed, skip: skip, limit: limit, projection: projection, sort: sort, db)
        }
        // A text search runs in the write that brings the text index up to
        // date: FTS cannot check a single changed document on the side.
        if parsed.containsText {
            return try write { db in
                try updateIndexes(db)
                return try query(db)
            }
        }
        // Usually the indexes are current: check and query in one read.
        if let results = try read({ db in try indexesAreStale(db) ? nil : try query(db) }) { return results }
        try write { db in try updateIndexes(db) }
        return try read(query)
    }

    /// ``find(_:skip:limit:fields:sort:)`` with the selector as JSON text
    /// (`{"age": {"$gt": 12}}`).
    /// - Throws: ``QueryError/invalidSelector(path:reason:)`` for text that is not JSON, and `find`'s errors.
    public func find(json selector: String, skip: Int = 0, limit: Int = 0, fields: [String]? = nil,
                     sort: [SortField] = []) throws -> [DocumentRevision]
    {
        let value: BodyValue
        do throws(JSONText.SyntaxError) {
            value = try JSONText.read(Array(selector.utf8))
        } catch {
            throw QueryError.invalidSelector(path: "", reason: "not JSON: \(error)")
        }
        return try find(value, skip: skip, limit: limit, fields: fields, sort: sort)
    }

    /// Which indexes a query would use.
    public func explain(_ selector: BodyValue, sort: [SortField] = []) throws -> QueryExplanation {
        let parsed = try SelectorParser.parse(selector)
        return try read { db in
            let planner = try self.planner(sorting: sort, for: parsed, db)
            return QueryExplanation(indexes: planner.plan(parsed).indexes)
        }
    }

    private func indexesAreStale(_ db: GRDB.Database) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT COALESCE((SELECT MIN(lastSequence) FROM query_indexes), 1 << 62)
                 < COALESCE((SELECT MAX(sequence) FROM revisions), 0)
            """) ?? false
    }

    private static func projection(_ fields: [String]) throws -> Set<ExactString> {
        for field in fields where field.unicodeScalars.contains(".") || field.isEmpty {
            throw QueryError.invalidField(field, reason: "projected fields are top-level names, without dots")
        }
        return Set(fields.map { ExactString($0) })
    }

    /// The planner over the datastore's indexes, after checking that one
    /// JSON index holds every sort field (Cloudant's rule) and that a
    /// `$text` query has a text index.
    private func planner(sorting sort: [SortField], for selector: Selector, _ db: GRDB.Database) throws -> QueryPlanner {
        let definitions = try indexDefinitions(db)
        let json = definitions.filter { $0.type == .json }
        if !sort.isEmpty {
            for field in sort { _ = try FieldPath(field.field) }
            let wanted = Set(sort.map { ExactString($0.field) })
            guard json.contains(where: { wanted.isSubset(of: $0.fields.map { ExactString($0) }) }) else {
                throw QueryError.invalidSort("no JSON index holds all of \(sort.map(\.field).joined(separator: ", "))")
            }
        }
        let text = definitions.first { $0.type == .text }
        if selector.containsText, text == nil { throw QueryError.noTextIndex }
        var byField: [FieldPath: IndexDefinition] = [:]
        for definition in json where byField[definition.leadingField] == nil { byField[definition.leadingField] = definition }
        return QueryPlanner(indexes: byField, textIndex: text)
    }

    private func run(_ selector: Selector, skip: Int, limit: Int, projection: Set<ExactString>?, sort: [SortField],
                     _ db: GRDB.Database) throws -> [DocumentRevision]
    {
        let planner = try self.planner(sorting: sort, for: selector, db)
        var matcher = SelectorMatcher()
        if let text = planner.textIndex, selector.containsText {
            // First: a search FTS5 cannot parse is reported here, by name.
            let searches = try textSearches(selector, in: text, db)
            matcher.textMatches = { docId in searches.contains(docId) }
        }
        let rows = try candidateRows(planner.plan(selector), db)
        var matches: [(row: DocumentRow, body: BodyValue, view: StoredView)] = []
        for row in rows {
            let view = try self.view(of: row, db)
            let body = view.queryBody(docId: row.docId, revId: row.revId)
            if matcher.matches(selector, body) { matches.append((row, body, view)) }
        }
        if !sort.isEmpty {
            let paths = try sort.map { (try FieldPath($0.field), $0.descending) }
            matches.sort { a, b in
                Self.precedes(a.body, b.body, by: paths) ?? (ExactString(a.row.docId) < ExactString(b.row.docId))
            }
        }
        let page = matches.dropFirst(max(0, skip)).prefix(limit > 0 ? limit : Int.max)
        return page.map { match in
            let revision = self.revision(docId: match.row.docId, revId: match.row.revId, sequence: match.row.sequence,
                                         view: match.view)
            if let projection, case .map(let entries) = revision.body {
                revision.body = .map(entries.filter { projection.contains($0.key) })
                revision.attachments = [:]
            }
            return revision
        }
    }

    /// Whether `a` sorts before `b` on the first sort field they differ in
    /// (nil when equal on all); a missing field sorts first.
    private static func precedes(_ a: BodyValue, _ b: BodyValue, by paths: [(FieldPath, Bool)]) -> Bool? {
        for (path, descending) in paths {
            let (left, right) = (path.value(in: a), path.value(in: b))
            let order: Int
            switch (left, right) {
            case (nil, nil): order = 0
            case (nil, _): order = -1
            case (_, nil): order = 1
            case (let left?, let right?): order = Collation.compare(left, right)
            }
            if order != 0 { return descending ? order > 0 : order < 0 }
        }
        return nil
    }

    /// The live documents a plan yields, plus those written since the
    /// oldest index was brought up to date (a write may land between the
    /// upkeep and this read), by id.
    private func candidateRows(_ plan: QueryPlan, _ db: GRDB.Database) throws -> [DocumentRow] {
        guard let sql = plan.sql else {
            return try Row.fetchAll(db, sql: "SELECT \(DocumentRow.columns) FROM documents WHERE deleted = 0 ORDER BY docId")
                .map(DocumentRow.init)
        }
        return try Row.fetchAll(db, sql: """
            SELECT \(DocumentRow.columns) FROM documents WHERE deleted = 0 AND docId IN (
                \(sql)
                UNION SELECT docId FROM revisions
                      WHERE sequence > COALESCE((SELECT MIN(lastSequence) FROM query_indexes), 0))
            ORDER BY docId
            """, arguments: StatementArguments(plan.arguments)).map(DocumentRow.init)
    }

    /// The ids each `$text` search of the selector matches.
    private func textSearches(_ selector: Selector, in index: IndexDefinition, _ db: GRDB.Database) throws
        -> Set<ExactString>
    {
        var ids = Set<ExactString>()
        for query in selector.textQueries {
            do {
                ids.formUnion(try String.fetchAll(db, sql: index.textSearchSQL, arguments: [query]).map { ExactString($0) })
            } catch let error as DatabaseError {
                throw QueryError.invalidSelector(path: "$text", reason: "not a valid search (\(error.message ?? "\(error)"))")
            }
        }
        return ids
    }
}

extension Selector {
    /// Whether a `$text` search appears anywhere in it.
    var containsText: Bool { !textQueries.isEmpty }

    /// Its `$text` searches.
    var textQueries: [String] {
        switch self {
        case .text(let query): return [query]
        case .and(let parts), .or(let parts): return parts.flatMap(\.textQueries)
        case .not(let inner): return inner.textQueries
        case .all, .field: return []
        }
    }
}

import GRDB

/// The kinds of query index.
public enum IndexType: String, Sendable, Codable {
    /// Values of JSON fields, for comparisons, `$in`, `$exists` and sorting.
    case json
    /// Full text of string fields (SQLite FTS5), for `$text`; one per datastore.
    case text
}

/// A query index as ``Datastore/listIndexes()`` reports it.
public struct IndexDefinition: Equatable, Sendable {
    /// The index's name.
    public let name: String
    /// Its kind.
    public let type: IndexType
    /// The fields it holds, in dotted notation, in order.
    public let fields: [String]

    /// Whether the two are the same definition: fields by their Unicode
    /// scalars (an index of "é" is not one of "e\u{301}").
    public static func == (a: IndexDefinition, b: IndexDefinition) -> Bool {
        a.name == b.name && a.type == b.type && a.fields.map { ExactString($0) } == b.fields.map { ExactString($0) }
    }

    /// The SQLite table holding its entries (names are checked to be plain identifiers).
    var table: String { (type == .json ? "qi_" : "qt_") + name }

    /// The first field's path: a JSON index holds one row per document for
    /// its value (and one per element when it is an array), which narrows
    /// queries on that field; the matcher decides everything else.
    var leadingField: FieldPath { try! FieldPath(fields[0]) }

    /// Creates its table.
    func create(_ db: GRDB.Database) throws {
        switch type {
        case .json:
            try db.execute(sql: """
                CREATE TABLE \(table) (docId TEXT NOT NULL, rank INTEGER, value);
                CREATE INDEX \(table)_by_value ON \(table)(rank, value);
                CREATE INDEX \(table)_by_document ON \(table)(docId);
                """)
        case .text:
            // FTS5 finds rows by rowid only: `_ids` gives each document a
            // stable one (an INTEGER PRIMARY KEY survives VACUUM).
            try db.execute(sql: """
                CREATE VIRTUAL TABLE \(table) USING fts5(\(textColumns));
                CREATE TABLE \(table)_ids (rowid INTEGER PRIMARY KEY, docId TEXT NOT NULL UNIQUE);
                """)
        }
    }

    /// A text index's columns, one per field: f0, f1, ...
    private var textColumns: String { fields.indices.map { "f\($0)" }.joined(separator: ", ") }

    /// Drops its tables.
    func drop(_ db: GRDB.Database) throws {
        try db.execute(sql: "DROP TABLE \(table)")
        if type == .text { try db.execute(sql: "DROP TABLE \(table)_ids") }
    }

    /// `SELECT docId` of the documents a text search matches.
    var textSearchSQL: String {
        "SELECT ids.docId FROM \(table) JOIN \(table)_ids AS ids ON ids.rowid = \(table).rowid WHERE \(table) MATCH ?"
    }

    /// Replaces the document's entries with those of `body` (nil: deleted).
    func index(docId: String, body: BodyValue?, _ db: GRDB.Database) throws {
        switch type {
        case .json:
            try db.cachedStatement(sql: "DELETE FROM \(table) WHERE docId = ?").execute(arguments: [docId])
            guard let body else { return }
            let insert = try db.cachedStatement(sql: "INSERT INTO \(table) (docId, rank, value) VALUES (?, ?, ?)")
            for (rank, value) in Self.entries(for: leadingField.value(in: body)) {
                try insert.execute(arguments: [docId, rank, value])
            }
        case .text:
            let rowid = try Int64.fetchOne(try db.cachedStatement(sql: "SELECT rowid FROM \(table)_ids WHERE docId = ?"),
                                           arguments: [docId])
            if let rowid { try db.cachedStatement(sql: "DELETE FROM \(table) WHERE rowid = ?").execute(arguments: [rowid]) }
            let texts = try fields.map { field in Self.text(in: try FieldPath(field).value(in: body ?? .null)) }
            guard texts.contains(where: { !$0.isEmpty }) else {
                try db.cachedStatement(sql: "DELETE FROM \(table)_ids WHERE docId = ?").execute(arguments: [docId])
                return
            }
            var id = rowid
            if id == nil {
                try db.cachedStatement(sql: "INSERT INTO \(table)_ids (docId) VALUES (?)").execute(arguments: [docId])
                id = db.lastInsertedRowID
            }
            let placeholders = Array(repeating: "?", count: fields.count).joined(separator: ", ")
            try db.cachedStatement(sql: "INSERT INTO \(table) (rowid, \(textColumns)) VALUES (?, \(placeholders))")
                .execute(arguments: StatementArguments([id!.databaseValue] + texts.map(\.databaseValue)))
        }
    }

    /// The rows a value is indexed as: its own, and one per element of an array.
    static func entries(for value: BodyValue?) -> [(rank: Int?, value: DatabaseValue)] {
        guard let value else { return [(nil, .null)] }
        var entries = [(Optional(Collation.rank(value)), sqlValue(value))]
        if case .list(let elements) = value {
            for element in Set(elements) { entries.append((Collation.rank(element), sqlValue(element))) }
        }
        return entries
    }

    /// How a value is compared in SQL within its rank (null, booleans,
    /// arrays and maps are told apart by rank alone).
    static func sqlValue(_ value: BodyValue) -> DatabaseValue {
        switch value {
        case .int(let number): return number.databaseValue
        case .double(let number): return number.databaseValue
        case .string(let string): return string.databaseValue
        case .null, .bool, .list, .map: return .null
        }
    }

    /// The strings in a value, for full-text search.
    static func text(in value: BodyValue?) -> String {
        switch value {
        case .string(let string)?: return string
        case .list(let elements)?: return elements.map { text(in: $0) }.filter { !$0.isEmpty }.joined(separator: "\n")
        default: return ""
        }
    }
}

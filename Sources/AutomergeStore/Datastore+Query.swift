import Foundation
import GRDB

/// How `find` orders its results: a field and a direction.
public struct SortField: Equatable, Sendable {
    /// The field, in dotted notation.
    public let field: String
    /// Descending rather than ascending.
    public let descending: Bool

    public init(_ field: String, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }

    /// Cloudant's sort document: `[["name": "asc"], ["age": "desc"]]`.
    /// - Throws: ``QueryError/invalidSort(_:)``.
    public static func parse(_ sort: [[String: String]]) throws -> [SortField] {
        try sort.map { entry in
            guard entry.count == 1, let (field, direction) = entry.first, ["asc", "desc"].contains(direction) else {
                throw QueryError.invalidSort("each entry is one field with \"asc\" or \"desc\", not \(entry)")
            }
            return SortField(field, descending: direction == "desc")
        }
    }
}

extension Datastore {
    /// Creates a query index named `name` over `fields` (dotted paths into
    /// nested maps; `_id` and `_rev` are the document's), or does nothing
    /// when it exists with this definition. A datastore has at most one
    /// `.text` index. The index is built now and kept up to date from the
    /// changes feed. Returns the name.
    /// - Throws: ``QueryError/invalidIndex(_:)``, ``QueryError/invalidField(_:reason:)``.
    @discardableResult
    public func ensureIndexed(fields: [String], name: String, type: IndexType = .json) throws -> String {
        guard DatastoreManager.isPlainName(name) else {
            throw QueryError.invalidIndex("index names match ^[a-zA-Z]+[a-zA-Z0-9_]*$, not '\(name)'")
        }
        guard !fields.isEmpty, Set(fields.map { ExactString($0) }).count == fields.count else {
            throw QueryError.invalidIndex("an index needs one or more distinct fields")
        }
        for field in fields { _ = try FieldPath(field) }
        let definition = IndexDefinition(name: name, type: type, fields: fields)
        try write { db in
            let existing = try indexDefinitions(db)
            if let same = existing.first(where: { $0.name == name }) {
                guard same == definition else { throw QueryError.invalidIndex("'\(name)' exists with another definition") }
                return
            }
            if type == .text, let text = existing.first(where: { $0.type == .text }) {
                throw QueryError.invalidIndex("a datastore has one text index, and has '\(text.name)'")
            }
            try definition.create(db)
            let fieldsJSON = String(decoding: try BodyJSON.encode(.list(fields.map(BodyValue.string))), as: UTF8.self)
            try db.execute(sql: "INSERT INTO query_indexes (name, type, fields, lastSequence) VALUES (?, ?, ?, 0)",
                           arguments: [name, type.rawValue, fieldsJSON])
            try updateIndexes(db)
        }
        return name
    }

    /// The query indexes, by name.
    public func listIndexes() throws -> [IndexDefinition] {
        try read { db in try indexDefinitions(db) }
    }

    /// Deletes the index `name`.
    /// - Throws: ``QueryError/indexNotFound(_:)``.
    public func deleteIndexNamed(_ name: String) throws {
        try write { db in
            guard let definition = try indexDefinitions(db).first(where: { $0.name == name }) else {
                throw QueryError.indexNotFound(name)
            }
            try definition.drop(db)
            try db.execute(sql: "DELETE FROM query_indexes WHERE name = ?", arguments: [name])
        }
    }

    /// Brings every index up to date with the documents (`find` does this too).
    public func updateAllIndexes() throws {
        try write { db in try updateIndexes(db) }
    }
}

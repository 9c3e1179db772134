import Automerge
import Foundation
import GRDB

extension Datastore {
    /// The query indexes, by name.
    func indexDefinitions(_ db: GRDB.Database) throws -> [IndexDefinition] {
        try Row.fetchAll(db, sql: "SELECT name, type, fields FROM query_indexes ORDER BY name").map { row in
            let fields = try BodyJSON.decode(Data((row["fields"] as String).utf8)).listValue?.compactMap(\.stringValue) ?? []
            return IndexDefinition(name: row["name"], type: IndexType(rawValue: row["type"]) ?? .json, fields: fields)
        }
    }

    /// Brings every index up to date with the documents written since it
    /// last was: each changed document is loaded once and re-indexed (or
    /// removed, when deleted) in every index behind it.
    func updateIndexes(_ db: GRDB.Database) throws {
        let positions = try Row.fetchAll(db, sql: "SELECT name, lastSequence FROM query_indexes")
        guard let oldest = positions.map({ $0["lastSequence"] as Int64 }).min() else { return }
        let latest = try DocumentRow.latestSequence(db)
        guard oldest < latest else { return }
        let since = Dictionary(uniqueKeysWithValues: positions.map { ($0["name"] as String, $0["lastSequence"] as Int64) })
        let definitions = try indexDefinitions(db)
        let changed = try Row.fetchAll(db, sql: """
            SELECT \(DocumentRow.columns) FROM \(DocumentRow.latestWrites) ORDER BY revisions.sequence
            """, arguments: [oldest]).map(DocumentRow.init)
        for row in changed {
            let behind = definitions.filter { since[$0.name]! < row.sequence }
            let body = row.deleted ? nil : try queryBody(of: row, db)
            for definition in behind { try definition.index(docId: row.docId, body: body, db) }
        }
        try db.execute(sql: "UPDATE query_indexes SET lastSequence = ?", arguments: [latest])
    }

    /// The body queries see: the document's body with `_id` and `_rev`.
    func queryBody(of row: DocumentRow, _ db: GRDB.Database) throws -> BodyValue {
        try view(of: row, db).queryBody(docId: row.docId, revId: row.revId)
    }
}

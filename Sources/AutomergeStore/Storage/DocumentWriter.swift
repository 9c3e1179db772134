import Automerge
import Foundation
import GRDB

/// Records a document's new state inside a write transaction: the new
/// change bytes appended (or a new snapshot once the appended chunks
/// outgrow the old one), the document row moved to the new revision, a
/// revision row with the next sequence number, the blobs it names.
extension Datastore {
    /// Stores a new document. Returns its first revision. Its first
    /// "snapshot" is its one change, as a change chunk: already encoded by
    /// the commit, where a saved document would be encoded again (a
    /// sequence of chunks of either kind loads the same).
    func insert(_ docId: String, document: Document, _ db: GRDB.Database) throws -> DocumentRevision {
        let heads = document.heads()
        let revId = RevisionId.make(heads: heads, generation: 1)
        let view = try StoredView(of: document)
        let sequence = try addRevision(docId: docId, revId: revId, generation: 1, deleted: false, heads: heads, db)
        try db.cachedStatement(sql: """
            INSERT INTO documents (docId, revId, generation, deleted, conflicted, sequence, snapshot, chunkBytes, body)
            VALUES (?, ?, 1, 0, 0, ?, ?, 0, ?)
            """).execute(arguments: [docId, revId, sequence, try document.encodeChangesSince(heads: []), try view.stored])
        try addBlobReferences(of: view, docId: docId, db)
        return revision(docId: docId, revId: revId, sequence: sequence, view: view)
    }

    /// Stores the edits made to `document` since `row`'s revision (one new
    /// change). Returns the new revision.
    func update(_ row: DocumentRow, document: Document, since previousHeads: Set<ChangeHash>,
                _ db: GRDB.Database) throws -> DocumentRevision
    {
        let heads = document.heads()
        let chunk = try document.encodeChangesSince(heads: previousHeads)
        let generation = row.generation + 1
        let revId = RevisionId.make(heads: heads, generation: Int(generation))
        let view = try StoredView(of: document)
        let conflicted = try (row.conflicted || heads.count > 1) && ConflictScan.hasConflicts(document)
        let sequence = try addRevision(docId: row.docId, revId: revId, generation: generation, deleted: view.deleted,
                                       heads: heads, db)
        if row.chunkBytes + Int64(chunk.count) > row.snapshotLength {
            try db.cachedStatement(sql: "DELETE FROM document_chunks WHERE docId = ?").execute(arguments: [row.docId])
            try db.cachedStatement(sql: """
                UPDATE documents SET revId = ?, generation = ?, deleted = ?, conflicted = ?, sequence = ?,
                snapshot = ?, chunkBytes = 0, body = ? WHERE docId = ?
                """).execute(arguments: [revId, generation, view.deleted, conflicted, sequence, document.save(),
                                         try view.stored, row.docId])
        } else {
            try db.cachedStatement(sql: """
                INSERT INTO document_chunks (docId, position, bytes)
                VALUES (?, (SELECT COALESCE(MAX(position), 0) + 1 FROM document_chunks WHERE docId = ?), ?)
                """).execute(arguments: [row.docId, row.docId, chunk])
            try db.cachedStatement(sql: """
                UPDATE documents SET revId = ?, generation = ?, deleted = ?, conflicted = ?, sequence = ?,
                chunkBytes = chunkBytes + ?, body = ? WHERE docId = ?
                """).execute(arguments: [revId, generation, view.deleted, conflicted, sequence, chunk.count,
                                         try view.stored, row.docId])
        }
        try addBlobReferences(of: view, docId: row.docId, db)
        return revision(docId: row.docId, revId: revId, sequence: sequence, view: view)
    }

    private func addRevision(docId: String, revId: String, generation: Int64, deleted: Bool,
                             heads: Set<ChangeHash>, _ db: GRDB.Database) throws -> Int64
    {
        try db.cachedStatement(sql: """
            INSERT INTO revisions (docId, revId, generation, deleted, heads) VALUES (?, ?, ?, ?, ?)
            """).execute(arguments: [docId, revId, generation, deleted, ChangeHash.encode(heads)])
        return db.lastInsertedRowID
    }

    private func addBlobReferences(of view: StoredView, docId: String, _ db: GRDB.Database) throws {
        for metadata in view.attachments.values {
            guard let hex = metadata.sha256 else { continue }
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO blob_refs (digest, docId) VALUES (?, ?)")
                .execute(arguments: [hex, docId])
        }
    }
}

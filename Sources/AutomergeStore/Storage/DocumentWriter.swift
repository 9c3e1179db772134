import Automerge
import Foundation
import GRDB

/// Records a document's new state inside a write transaction: the new
/// change bytes appended (or a new snapshot once the appended chunks
/// outgrow the old one), the document row moved to the new revision, a
/// revision row with the next sequence number, the blobs it names.
extension Datastore {
    /// Stores a new document. Returns its first revision.
    func insert(_ docId: String, document: Document, _ db: GRDB.Database) throws -> DocumentRevision {
        let heads = document.heads()
        let revId = RevisionId.make(heads: heads, generation: 1)
        let sequence = try addRevision(docId: docId, revId: revId, generation: 1, deleted: false, heads: heads, db)
        try db.execute(sql: """
            INSERT INTO documents (docId, revId, generation, deleted, conflicted, sequence, snapshot, chunkBytes)
            VALUES (?, ?, 1, 0, 0, ?, ?, 0)
            """, arguments: [docId, revId, sequence, document.save()])
        try addBlobReferences(of: document, docId: docId, db)
        return try revision(docId: docId, revId: revId, sequence: sequence, document: document)
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
        let deleted = try StoredLayout.isDeleted(document)
        let conflicted = try (row.conflicted || heads.count > 1) && ConflictScan.hasConflicts(document)
        let sequence = try addRevision(docId: row.docId, revId: revId, generation: generation, deleted: deleted,
                                       heads: heads, db)
        if row.chunkBytes + Int64(chunk.count) > row.snapshotLength {
            try db.execute(sql: "DELETE FROM document_chunks WHERE docId = ?", arguments: [row.docId])
            try db.execute(sql: """
                UPDATE documents SET revId = ?, generation = ?, deleted = ?, conflicted = ?, sequence = ?,
                snapshot = ?, chunkBytes = 0 WHERE docId = ?
                """, arguments: [revId, generation, deleted, conflicted, sequence, document.save(), row.docId])
        } else {
            try db.execute(sql: """
                INSERT INTO document_chunks (docId, position, bytes)
                VALUES (?, (SELECT COALESCE(MAX(position), 0) + 1 FROM document_chunks WHERE docId = ?), ?)
                """, arguments: [row.docId, row.docId, chunk])
            try db.execute(sql: """
                UPDATE documents SET revId = ?, generation = ?, deleted = ?, conflicted = ?, sequence = ?,
                chunkBytes = chunkBytes + ? WHERE docId = ?
                """, arguments: [revId, generation, deleted, conflicted, sequence, chunk.count, row.docId])
        }
        try addBlobReferences(of: document, docId: row.docId, db)
        return try revision(docId: row.docId, revId: revId, sequence: sequence, document: document)
    }

    private func addRevision(docId: String, revId: String, generation: Int64, deleted: Bool,
                             heads: Set<ChangeHash>, _ db: GRDB.Database) throws -> Int64
    {
        try db.execute(sql: """
            INSERT INTO revisions (docId, revId, generation, deleted, heads) VALUES (?, ?, ?, ?, ?)
            """, arguments: [docId, revId, generation, deleted, ChangeHash.encode(heads)])
        return db.lastInsertedRowID
    }

    private func addBlobReferences(of document: Document, docId: String, _ db: GRDB.Database) throws {
        for metadata in try StoredLayout.attachments(of: document).values {
            guard let hex = metadata.sha256 else { continue }
            try db.execute(sql: "INSERT OR IGNORE INTO blob_refs (digest, docId) VALUES (?, ?)", arguments: [hex, docId])
        }
    }
}

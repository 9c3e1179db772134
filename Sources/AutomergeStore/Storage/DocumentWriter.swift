@_spi(Storage) import Automerge
import Foundation
import GRDB

/// Records a document's new state inside a write transaction: a revision
/// row holding the change bytes the write added (or, once the bytes after
/// the snapshot outgrow it, the whole document as a new snapshot), the
/// document row moved to the new revision with the next sequence number,
/// the blobs it names. See ``StoreSchema`` for the layout.
///
/// A revision's generation is its document's number of changes: one more
/// per local write (a write commits one change), and as many more as a
/// replication brought, so that replicas holding the same changes name
/// the same revision (see docs/decisions.md, "Replication").
extension Datastore {
    /// Stores a new document (made here, or received from a replica).
    /// Returns its first revision. Its first snapshot is its changes, as
    /// change chunks: already encoded by the commit, where a saved document
    /// would be encoded again (a sequence of chunks of either kind loads the same).
    func insert(_ docId: String, document: Document, _ db: GRDB.Database) throws -> DocumentRevision {
        try insert(docId, try PreparedWrite(inserting: document), db)
    }

    /// Stores a new document prepared (encoded) beforehand.
    func insert(_ docId: String, _ prepared: PreparedWrite, _ db: GRDB.Database) throws -> DocumentRevision {
        let view = prepared.view
        let sequence = try addRevision(docId: docId, revId: prepared.revId, generation: prepared.generation,
                                       deleted: view.deleted, heads: prepared.encodedHeads, bytes: prepared.bytes, previous: nil, db)
        try db.cachedStatement(sql: """
            INSERT INTO documents (docId, revId, generation, deleted, conflicted, sequence,
                                   snapshotGeneration, snapshotLength, chunkBytes, body)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?)
            """).execute(arguments: [docId, prepared.revId, prepared.generation, view.deleted, prepared.conflicted,
                                     sequence, prepared.generation, prepared.bytes.count, prepared.body])
        try addBlobReferences(of: prepared.attachments, docId: docId, db)
        return revision(docId: docId, revId: prepared.revId, sequence: sequence, view: view)
    }

    /// Stores the edits made to `document` since `row`'s revision (one new
    /// change, or those a replication brought). Returns the new revision.
    func update(_ row: DocumentRow, document: Document, since previousHeads: Set<ChangeHash>,
                _ db: GRDB.Database) throws -> DocumentRevision
    {
        try update(row, try PreparedWrite(updating: row, to: document, since: previousHeads), db)
    }

    /// Stores a write after `row` prepared (encoded) beforehand, for `row`.
    func update(_ row: DocumentRow, _ prepared: PreparedWrite, _ db: GRDB.Database) throws -> DocumentRevision {
        let view = prepared.view
        if prepared.isSnapshot {
            for revision in try RevisionChain.sinceSnapshot(of: row, db) {
                try db.cachedStatement(sql: "UPDATE revisions SET bytes = NULL WHERE sequence = ?").execute(arguments: [revision.sequence])
            }
        }
        let sequence = try addRevision(docId: row.docId, revId: prepared.revId, generation: prepared.generation,
                                       deleted: view.deleted, heads: prepared.encodedHeads, bytes: prepared.bytes,
                                       previous: row.sequence, db)
        if prepared.isSnapshot {
            try db.cachedStatement(sql: """
                UPDATE documents SET revId = ?, generation = ?, deleted = ?, conflicted = ?, sequence = ?,
                snapshotGeneration = ?, snapshotLength = ?, chunkBytes = 0, body = ? WHERE docId = ?
                """).execute(arguments: [prepared.revId, prepared.generation, view.deleted, prepared.conflicted, sequence,
                                         prepared.generation, prepared.bytes.count, prepared.body, row.docId])
        } else {
            try db.cachedStatement(sql: """
                UPDATE documents SET revId = ?, generation = ?, deleted = ?, conflicted = ?, sequence = ?,
                chunkBytes = chunkBytes + ?, body = ? WHERE docId = ?
                """).execute(arguments: [prepared.revId, prepared.generation, view.deleted, prepared.conflicted, sequence,
                                         prepared.bytes.count, prepared.body, row.docId])
        }
        try addBlobReferences(of: prepared.attachments, docId: row.docId, db)
        return revision(docId: row.docId, revId: prepared.revId, sequence: sequence, view: view)
    }

    /// The generation of the revision after `row`'s when the document
    /// holds `changeCount` changes: that count, and more than `row`'s even
    /// for a document created with no change before schema v6 (its first
    /// revision was generation 1).
    static func generation(after row: DocumentRow, changeCount: Int) -> Int64 {
        max(row.generation + 1, Int64(changeCount))
    }

    /// Whether the write after `row` adding `chunkLength` bytes of changes
    /// stores a new snapshot instead: once the chunks after the snapshot
    /// would outgrow it (a load then reads at most twice the document's
    /// saved size), or once they hold ``maxRevisionsPerSnapshot`` changes
    /// (a load applies each as a change, and finds its chunk through the
    /// revision before it, see ``RevisionChain``; a revision holds at
    /// least one change).
    static func compacts(_ row: DocumentRow, adding chunkLength: Int) -> Bool {
        row.chunkBytes > row.snapshotLength - Int64(chunkLength)
            || row.generation - row.snapshotGeneration + 1 >= maxRevisionsPerSnapshot
    }

    /// See ``compacts(_:adding:)``.
    static let maxRevisionsPerSnapshot: Int64 = 64

    /// Adds the write's revision row, after the document's revision at
    /// sequence `previous` (nil for its first). Returns its sequence: one
    /// more than the last (see ``StoreSchema``).
    private func addRevision(docId: String, revId: String, generation: Int64, deleted: Bool, heads: Data,
                             bytes: Data, previous: Int64?, _ db: GRDB.Database) throws -> Int64
    {
        try db.cachedStatement(sql: """
            INSERT INTO revisions (docId, generation, revId, deleted, heads, bytes, previous) VALUES (?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [docId, generation, revId, deleted, heads, bytes, previous])
        return db.lastInsertedRowID
    }

    private func addBlobReferences(of attachments: Set<AttachmentMetadata>, docId: String, _ db: GRDB.Database) throws {
        for metadata in attachments {
            guard let hex = metadata.sha256 else { continue }
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO blob_refs (digest, docId) VALUES (?, ?)")
                .execute(arguments: [hex, docId])
        }
    }
}

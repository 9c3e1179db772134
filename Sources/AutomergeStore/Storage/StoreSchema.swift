import Foundation
import GRDB

/// The datastore's SQLite schema, as migrations (applied in order, once each,
/// when a datastore opens). Since v5:
///
/// - `revisions`: every write, ever: its `sequence` (the datastore's write
///   counter, the row id: one more than the last, and never reused, since
///   revisions are never removed), the document and revision it made, the
///   Automerge heads it stands for (old revisions are read by forking the
///   document at them), the sequence of the document's revision before it
///   (`previous`), and the Automerge bytes it added: its change chunks, or,
///   for the revision at `documents.snapshotGeneration`, the whole document
///   (its snapshot). A document's bytes are those of its revisions from the
///   snapshot's on, in order, so a write adds one row of O(change) bytes;
///   once they outgrow the snapshot (or number 64), a write stores a new
///   snapshot and clears the bytes of the revisions before it. There is no index by
///   document: a document's revisions are found by following `previous`
///   back from its current one (see ``RevisionChain``), so that a write
///   dirties two pages (its revision row, at the end of the table, and its
///   document row). The changes feed reads revisions in sequence order.
/// - `documents`: one row per document, never removed (a deleted document
///   keeps its row, marked deleted): its current revision and sequence, and
///   its view as JSON (`body`; see ``StoredView``). It holds no Automerge
///   bytes and no index but its key: an update rewrites this row, and
///   SQLite rewrites a row whole (before v4 it held the snapshot, and
///   `document_chunks` the chunks).
/// - `blob_refs`: which documents name which attachment blobs.
/// - `meta`: the datastore's Automerge actor id.
/// - `query_indexes` (v2): the query indexes, each with its table (see
///   ``IndexDefinition``) and the sequence it is up to date with.
/// - `replication_peers` and `replication_documents` (v6): per replica this
///   datastore replicates with, the changes-feed sequence up to which every
///   document is known to be there (its checkpoint), and per document the
///   Automerge sync state and the sequence of the revision the replica is
///   known to hold (see ``ReplicationLedger``).
///
/// Large values live in row-id tables only: SQLite compares a key against
/// a whole cell of a WITHOUT ROWID table or an index, reading all its
/// overflow pages, so a snapshot there would be read by every seek that
/// passes it.
enum StoreSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL);
                CREATE TABLE documents (
                    docId TEXT PRIMARY KEY NOT NULL,
                    revId TEXT NOT NULL,
                    generation INTEGER NOT NULL,
                    deleted BOOLEAN NOT NULL,
                    conflicted BOOLEAN NOT NULL,
                    sequence INTEGER NOT NULL,
                    snapshot BLOB NOT NULL,
                    chunkBytes INTEGER NOT NULL
                );
                CREATE INDEX documents_by_sequence ON documents(sequence);
                CREATE TABLE document_chunks (
                    docId TEXT NOT NULL REFERENCES documents(docId) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    bytes BLOB NOT NULL,
                    PRIMARY KEY (docId, position)
                );
                CREATE TABLE revisions (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    docId TEXT NOT NULL,
                    revId TEXT NOT NULL,
                    generation INTEGER NOT NULL,
                    deleted BOOLEAN NOT NULL,
                    heads BLOB NOT NULL
                );
                CREATE UNIQUE INDEX revisions_by_document ON revisions(docId, revId);
                CREATE TABLE blob_refs (
                    digest TEXT NOT NULL,
                    docId TEXT NOT NULL,
                    PRIMARY KEY (digest, docId)
                );
                """)
        }
        migrator.registerMigration("v2") { db in
            try db.execute(sql: """
                CREATE TABLE query_indexes (
                    name TEXT PRIMARY KEY NOT NULL,
                    type TEXT NOT NULL,
                    fields TEXT NOT NULL,
                    lastSequence INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v3") { db in
            // Rows written before v3 have no body; reads load their Automerge bytes.
            try db.execute(sql: "ALTER TABLE documents ADD COLUMN body BLOB")
        }
        migrator.registerMigration("v4", migrate: revisionsHoldTheBytes)
        migrator.registerMigration("v5", migrate: revisionsChainedByDocument)
        migrator.registerMigration("v6") { db in
            try db.execute(sql: """
                CREATE TABLE replication_peers (peer TEXT PRIMARY KEY NOT NULL, checkpoint INTEGER NOT NULL);
                CREATE TABLE replication_documents (
                    peer TEXT NOT NULL,
                    docId TEXT NOT NULL,
                    syncState BLOB NOT NULL,
                    syncedSequence INTEGER NOT NULL,
                    PRIMARY KEY (peer, docId)
                ) WITHOUT ROWID;
                """)
        }
        // v7: sync states are kept per document in the order last saved, so
        // that the oldest can go when a document has more than its limit.
        migrator.registerMigration("v7") { db in
            try db.execute(sql: """
                ALTER TABLE replication_documents ADD COLUMN savedAt INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX replication_documents_by_document ON replication_documents (docId, savedAt);
                """)
        }
        return migrator
    }

    /// v5: each revision row names the document's revision before it
    /// (`previous`), and `revisions_by_document` goes: its entry for a
    /// write sat at a random place in the index, a third page for every
    /// write to dirty (and a B-tree insert), which cost an update about as
    /// much as the rest of its SQLite work.
    private static func revisionsChainedByDocument(_ db: GRDB.Database) throws {
        try db.execute(sql: """
            ALTER TABLE revisions ADD COLUMN previous INTEGER;
            UPDATE revisions SET previous = (
                SELECT earlier.sequence FROM revisions AS earlier
                WHERE earlier.docId = revisions.docId AND earlier.generation = revisions.generation - 1);
            DROP INDEX revisions_by_document;
            """)
    }

    /// v4: the Automerge bytes move from `documents` (snapshot) and
    /// `document_chunks` into `revisions`; each document's snapshot and
    /// chunks become the bytes of its current revision, its new snapshot.
    private static func revisionsHoldTheBytes(_ db: GRDB.Database) throws {
        try db.execute(sql: """
            CREATE TABLE revisions_v4 (
                sequence INTEGER PRIMARY KEY,
                docId TEXT NOT NULL,
                generation INTEGER NOT NULL,
                revId TEXT NOT NULL,
                deleted BOOLEAN NOT NULL,
                heads BLOB NOT NULL,
                bytes BLOB
            );
            INSERT INTO revisions_v4 (sequence, docId, generation, revId, deleted, heads)
                SELECT sequence, docId, generation, revId, deleted, heads FROM revisions;
            DROP INDEX revisions_by_document;
            CREATE UNIQUE INDEX revisions_by_document ON revisions_v4(docId, generation);
            CREATE TABLE documents_v4 (
                docId TEXT PRIMARY KEY NOT NULL,
                revId TEXT NOT NULL,
                generation INTEGER NOT NULL,
                deleted BOOLEAN NOT NULL,
                conflicted BOOLEAN NOT NULL,
                sequence INTEGER NOT NULL,
                snapshotGeneration INTEGER NOT NULL,
                snapshotLength INTEGER NOT NULL,
                chunkBytes INTEGER NOT NULL,
                body BLOB
            );
            INSERT INTO documents_v4 (docId, revId, generation, deleted, conflicted, sequence,
                                      snapshotGeneration, snapshotLength, chunkBytes, body)
                SELECT docId, revId, generation, deleted, conflicted, sequence,
                       generation, length(snapshot) + chunkBytes, 0, body FROM documents;
            """)
        for docId in try String.fetchAll(db, sql: "SELECT docId FROM documents") {
            guard let row = try Row.fetchOne(db, sql: "SELECT generation, snapshot FROM documents WHERE docId = ?",
                                             arguments: [docId])
            else { continue }
            var bytes: Data = row["snapshot"]
            let chunks = try Data.fetchAll(db, sql: "SELECT bytes FROM document_chunks WHERE docId = ? ORDER BY position",
                                           arguments: [docId])
            for chunk in chunks { bytes.append(chunk) }
            try db.execute(sql: "UPDATE revisions_v4 SET bytes = ? WHERE docId = ? AND generation = ?",
                           arguments: [bytes, docId, row["generation"] as Int64])
        }
        try db.execute(sql: """
            DROP TABLE document_chunks;
            DROP TABLE documents;
            DROP TABLE revisions;
            ALTER TABLE documents_v4 RENAME TO documents;
            ALTER TABLE revisions_v4 RENAME TO revisions;
            """)
    }
}

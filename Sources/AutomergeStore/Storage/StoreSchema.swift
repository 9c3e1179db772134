import GRDB

/// The datastore's SQLite schema, as migrations (applied in order, once each,
/// when a datastore opens).
///
/// - `documents`: one row per document: its current revision, its view as
///   JSON (`body`, v3; see ``StoredView``), and its
///   Automerge bytes as a snapshot (a saved document) plus the change chunks
///   appended since, in `document_chunks`; a write appends O(change) bytes,
///   and the chunks are folded into a new snapshot once they outgrow it.
/// - `revisions`: every revision ever written, with the Automerge heads it
///   stands for (old revisions are read by forking the document at them);
///   its `sequence` is the datastore's write counter.
/// - `blob_refs`: which documents name which attachment blobs.
/// - `meta`: the datastore's Automerge actor id.
/// - `query_indexes` (v2): the query indexes, each with its table (see
///   ``IndexDefinition``) and the sequence it is up to date with.
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
        return migrator
    }
}

import Foundation
import GRDB

/// What a datastore knows about each replica it replicates with, in
/// `replication_peers` and `replication_documents` (see ``StoreSchema``):
///
/// - per document, the Automerge sync state (its persistent part, the heads
///   both sides share) and the sequence of the document's revision the
///   replica is known to hold all of (`syncedSequence`). Both are written in
///   the transaction that stores what the replica sent, so an interrupted
///   replication resumes where it stopped.
/// - per replica, a checkpoint into the changes feed: every document
///   changed at or before it is known to be at the replica. A replication
///   offers only the documents changed after it whose current revision
///   the replica is not known to hold, so that one changed document of
///   10,000 costs one exchange.
enum ReplicationLedger {
    static func checkpoint(peer: String, _ db: GRDB.Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT checkpoint FROM replication_peers WHERE peer = ?", arguments: [peer]) ?? 0
    }

    /// The document's saved sync state (see ``SyncState/encode()``).
    static func syncState(peer: String, docId: String, _ db: GRDB.Database) throws -> Data? {
        try Data.fetchOne(db.cachedStatement(sql: """
            SELECT syncState FROM replication_documents WHERE peer = ? AND docId = ?
            """), arguments: [peer, docId])
    }

    /// Saves a document's sync state and, when given, the sequence of a
    /// revision the peer holds (the record keeps the latest it was told).
    static func save(syncState: Data, heldSequence: Int64?, peer: String, docId: String,
                     keepingAtMost limit: Int? = nil, _ db: GRDB.Database) throws
    {
        let isNew = try Bool.fetchOne(db, sql: "SELECT 1 FROM replication_documents WHERE peer = ? AND docId = ?",
                                      arguments: [peer, docId]) == nil
        try db.cachedStatement(sql: """
            INSERT INTO replication_documents (peer, docId, syncState, syncedSequence, savedAt)
            VALUES (?, ?, ?, ?, (SELECT COALESCE(MAX(savedAt), 0) + 1 FROM replication_documents WHERE docId = ?))
            ON CONFLICT (peer, docId) DO UPDATE SET syncState = excluded.syncState,
                syncedSequence = MAX(syncedSequence, excluded.syncedSequence), savedAt = excluded.savedAt
            """).execute(arguments: [peer, docId, syncState, heldSequence ?? 0, docId])
        if isNew, let limit { try keep(atMost: limit, statesOf: docId, db) }
    }

    /// Deletes the least recently saved sync states of `docId` past the
    /// newest `limit`: their peers, should they come back, sync from the
    /// start (a longer exchange, nothing lost).
    private static func keep(atMost limit: Int, statesOf docId: String, _ db: GRDB.Database) throws {
        let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM replication_documents WHERE docId = ?",
                                     arguments: [docId]) ?? 0
        guard count > limit else { return }
        try db.execute(sql: """
            DELETE FROM replication_documents WHERE docId = ? AND peer IN (
                SELECT peer FROM replication_documents WHERE docId = ? ORDER BY savedAt LIMIT ?)
            """, arguments: [docId, docId, count - limit])
    }

    /// The documents changed after the peer's checkpoint whose current
    /// revision the peer is not known to hold, in the order of their latest write.
    static func unsyncedDocuments(peer: String, _ db: GRDB.Database) throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT documents.docId FROM \(DocumentRow.latestWrites) \(unsynced) ORDER BY revisions.sequence
            """, arguments: [try checkpoint(peer: peer, db), peer])
    }

    /// Moves the peer's checkpoint up to just before the first write whose
    /// document the peer is not known to hold (to the latest write when
    /// there is none).
    static func advanceCheckpoint(peer: String, _ db: GRDB.Database) throws {
        let current = try checkpoint(peer: peer, db)
        let firstUnsynced = try Int64.fetchOne(db, sql: """
            SELECT MIN(revisions.sequence) FROM \(DocumentRow.latestWrites) \(unsynced)
            """, arguments: [current, peer])
        let checkpoint = try firstUnsynced.map { $0 - 1 } ?? DocumentRow.latestSequence(db)
        guard checkpoint > current else { return }
        try db.execute(sql: """
            INSERT INTO replication_peers (peer, checkpoint) VALUES (?, ?)
            ON CONFLICT (peer) DO UPDATE SET checkpoint = excluded.checkpoint
            """, arguments: [peer, checkpoint])
    }

    /// Continues ``DocumentRow/latestWrites`` (its `?` is the checkpoint)
    /// with the documents whose current revision the peer (`?`) is not known to hold.
    private static let unsynced = """
        AND NOT EXISTS (SELECT 1 FROM replication_documents AS synced
                        WHERE synced.peer = ? AND synced.docId = documents.docId
                        AND synced.syncedSequence >= documents.sequence)
        """
}

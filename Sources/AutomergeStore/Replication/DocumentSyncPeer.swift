import Automerge
import Foundation
import GRDB

/// One peer's Automerge sync sessions with this datastore's documents, for a
/// network other than the datastore's own replication (automerge-repo's):
/// each call runs the sync protocol on one stored document, applying and
/// answering outside the datastore's write transaction, and storing what
/// the peer sent before the answer is generated, so that a reply is only
/// ever sent for changes already on disk. Calls for different documents
/// may run at once; calls for one document must not.
///
/// Documents are stored as they arrive: the peer's Automerge document is the
/// stored document, with no entry of the store's added (a root key `_deleted`
/// set to `true` by a peer still reads as a deleted document).
///
/// A peer that comes back under the same name (a storage id) resumes from
/// the heads both sides shared when `persistsSyncStates` is set; otherwise
/// its states live as long as this object.
public final class DocumentSyncPeer: Sendable {
    /// The datastore whose documents are synced.
    public let datastore: Datastore
    /// The name the peer's sync states are kept under.
    public let peer: String
    private let states: ReplicationSyncStates

    /// Sync sessions of `peer` with the documents of `datastore`. Changes
    /// the peer sends ahead of a document's history are held here, within
    /// `heldChangeLimits`, and dropped with this object. With
    /// `syncStatesPerDocument`, a document keeps the saved states of that
    /// many peers at most, the most recently saved (a peer that comes back
    /// after its state went syncs from the start).
    public init(datastore: Datastore, peer: String, persistsSyncStates: Bool,
                heldChangeLimits: HeldChangeLimits = HeldChangeLimits(), syncStatesPerDocument: Int? = nil)
    {
        self.datastore = datastore
        self.peer = peer
        states = ReplicationSyncStates(peer: peer, readOnly: false, persistent: persistsSyncStates,
                                       heldChangeLimits: heldChangeLimits, statesPerDocument: syncStatesPerDocument)
    }

    /// Applies the peer's sync message to the document `docId` (creating
    /// the document when the message brings its first changes) and returns
    /// the answer to send back, if any.
    /// - Throws: ``ReplicationError/protocolViolation(_:)`` for a message that
    ///   is not a sync message, carries changes that do not apply, or brings
    ///   the changes held for their dependencies past the limits (nothing is
    ///   written), and ``StoreError`` for storage failures.
    public func receiveSyncMessage(_ message: Data, docId: String) throws -> DocumentSyncOutcome {
        try datastore.receiveApart(message, docId: docId, states: states)
    }

    /// The next sync message to send the peer about `docId` (nil when there
    /// is nothing to say, or no such document).
    public func generateSyncMessage(docId: String) throws -> Data? {
        try datastore.offerApart(docId: docId, states: states)
    }
}

/// What ``DocumentSyncPeer/receiveSyncMessage(_:docId:)`` did.
public struct DocumentSyncOutcome: Sendable {
    /// The sync message to send the peer; nil when there is nothing to say.
    public var reply: Data?
    /// Whether the peer's message changed the stored document.
    public var changed: Bool
}

extension Datastore {
    /// Whether a document `docId` is stored (deleted or not).
    public func containsDocument(_ docId: String) throws -> Bool {
        try storedByteCount(docId) != nil
    }

    /// The bytes stored for document `docId` (its snapshot and the chunks
    /// after it: about what a whole-document sync message carries), nil when
    /// it is not stored. Reads two numbers of its row, not its view.
    public func storedByteCount(_ docId: String) throws -> Int? {
        try read { db in
            try DatabaseError.namingCorruption(of: docId) {
                let sql = "SELECT snapshotLength + chunkBytes FROM documents WHERE docId = ?"
                return try Int64.fetchOne(try db.cachedStatement(sql: sql), arguments: [docId]).map { Int(clamping: $0) }
            }
        }
    }

    /// Stores `document` as the document `docId` as it is: its changes are
    /// merged into the stored document (which is created when absent), with
    /// no entry of the store's added. Returns whether anything was written.
    ///
    /// This is how a peer keeps its own copy of a document it edits outside
    /// the store (an automerge-repo client); the store's revision, query and
    /// replication machinery see the result as any other write.
    @discardableResult
    public func storeAutomergeDocument(_ document: Document, docId: String) throws -> Bool {
        try Self.validate(docId: docId)
        var written: DocumentChange?
        do {
            written = try write { db -> DocumentChange? in
                let row = try DocumentRow.fetch(db, docId: docId)
                let stored = try row.map { try loadDocument($0, db, forWriting: true) } ?? newDocument()
                let before = stored.heads()
                guard before != document.heads() else { return nil }
                try stored.merge(other: document)
                guard stored.heads() != before else { return nil }
                let saved = try row.map { try update($0, document: stored, since: before, db) }
                    ?? insert(docId, document: stored, db)
                cache.store(stored, for: docId, at: saved.revId!)
                return DocumentChange(docId: docId, revId: saved.revId!, sequence: saved.sequence,
                                      kind: Self.kind(deleted: saved.deleted, first: row == nil))
            }
        } catch {
            cache.evict(docId)
            throw error
        }
        if let written { events.publish(written) }
        return written != nil
    }

    /// The stored Automerge document `docId` as it is now (a copy of its
    /// own), or nil when there is none.
    public func storedAutomergeDocument(_ docId: String) throws -> Document? {
        try read { db in try DocumentRow.fetch(db, docId: docId).map { try loadDocument($0, db) } }
    }

    /// The sync state saved for `peer` and `docId`, if any.
    public func savedSyncState(peer: String, docId: String) throws -> SyncState? {
        try read { db in try ReplicationLedger.syncState(peer: peer, docId: docId, db).flatMap { try? SyncState(bytes: $0) } }
    }

    /// Saves the persistent part of `state` (the heads both sides share, as `SyncState.encode()` writes it) for `peer` and `docId`.
    public func saveSyncState(_ state: SyncState, peer: String, docId: String) throws {
        try write { db in try ReplicationLedger.save(syncState: state.encode(), heldSequence: nil, peer: peer, docId: docId, db) }
    }
}

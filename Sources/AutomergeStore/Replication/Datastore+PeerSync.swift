@_spi(Storage) import Automerge
import Foundation
import GRDB

/// A peer's sync message handled with its heavy work outside the
/// datastore's write transaction: SQLite has one writer, and a message
/// that takes seconds to apply (a large or hostile one), or a whole
/// document to encode for a peer that has nothing, must not hold every
/// other document's writes for that long.
///
/// The document is taken out of the cache (or loaded) in a read, changed
/// in private, and written in a short transaction that checks it is still
/// at the revision it was taken at; if another writer got there first, the
/// message is handled again the old way, inside the transaction. Replies
/// are generated after the write, from what is stored, and the sync state
/// recorded in a second short transaction.
extension Datastore {
    func receiveApart(_ message: Data, docId: String, states: ReplicationSyncStates) throws -> DocumentSyncOutcome {
        let (row, state) = try read { db in (try DocumentRow.fetch(db, docId: docId), try states.state(for: docId, db)) }
        let document = try row.map { try takeForWriting($0) } ?? newDocument()
        let before = document.heads()
        try receive(message, into: document, state: state, docId: docId, states: states)
        var current = row.map { (revId: $0.revId, sequence: $0.sequence) }
        var changed = false
        if document.heads() != before {
            guard let written = try writeIfUnchanged(document, docId: docId, at: row, since: before) else {
                // Another writer changed the document meanwhile (and the cache
                // holds its revision, if any: this document left it when taken).
                let outcome = try replicate([.receive(docId: docId, message: message)], states: states)[0]
                return DocumentSyncOutcome(reply: outcome.reply, changed: outcome.written != nil)
            }
            events.publish(written)
            current = (written.revId, written.sequence)
            changed = true
        } else if let row {
            cache.store(document, for: docId, at: row.revId)
        }
        let reply = document.generateSyncMessage(state: state)
        if let current { try recordApart(state, docId: docId, at: current, states: states) }
        return DocumentSyncOutcome(reply: reply, changed: changed)
    }

    /// The next message to `states`' peer about `docId`, generated outside
    /// the write transaction that records its state; nil when there is
    /// nothing to say or no such document.
    func offerApart(docId: String, states: ReplicationSyncStates) throws -> Data? {
        let found = try read { db -> (DocumentRow, SyncState, Document)? in
            guard let row = try DocumentRow.fetch(db, docId: docId) else { return nil }
            let document = try cache.document(docId, at: row.revId) ?? loadDocument(row, db, forWriting: true)
            return (row, try states.state(for: docId, db), document)
        }
        guard let (row, state, document) = found else { return nil }
        let reply = document.generateSyncMessage(state: state)
        try recordApart(state, docId: docId, at: (row.revId, row.sequence), states: states)
        return reply
    }

    /// Records `state` in a write transaction of its own; opens none when
    /// the peer's states are not kept (a write takes SQLite's one writer).
    private func recordApart(_ state: SyncState, docId: String, at current: (revId: String, sequence: Int64),
                             states: ReplicationSyncStates) throws
    {
        guard states.persistent else { return }
        try write { db in try record(state, docId: docId, at: current, states: states, db) }
    }

    /// The document at `row`'s revision, for this caller alone: out of the
    /// cache (another writer loads its own), or loaded.
    private func takeForWriting(_ row: DocumentRow) throws -> Document {
        if let cached = cache.document(row.docId, at: row.revId) {
            cache.evict(row.docId)
            return cached
        }
        return try read { db in try loadDocument(row, db) }
    }

    /// Stores `document`'s changes since `before` (encoded before the
    /// transaction), when the stored document is still at `row`'s revision;
    /// nil, writing nothing, when not.
    private func writeIfUnchanged(_ document: Document, docId: String, at row: DocumentRow?, since before: Set<ChangeHash>)
        throws -> DocumentChange?
    {
        do {
            let prepared = try row.map { try PreparedWrite(updating: $0, to: document, since: before) }
                ?? PreparedWrite(inserting: document)
            return try write { db -> DocumentChange? in
                let stored = try DocumentRow.fetch(db, docId: docId)
                guard stored?.revId == row?.revId else { return nil }
                let saved = try stored.map { try update($0, prepared, db) } ?? insert(docId, prepared, db)
                cache.store(document, for: docId, at: saved.revId!)
                return DocumentChange(docId: docId, revId: saved.revId!, sequence: saved.sequence,
                                      kind: Self.kind(deleted: saved.deleted, first: stored == nil))
            }
        } catch {
            cache.evict(docId)
            throw error
        }
    }
}

@_spi(Storage) import Automerge
import Foundation
import GRDB

/// One thing a replication does to one document, inside a write
/// transaction with the others of its batch.
enum ReplicationStep {
    /// Start an exchange: the document's first sync message to the peer.
    case offer(docId: String)
    /// Apply a sync message from the peer, and answer it.
    case receive(docId: String, message: Data)
    /// An exchange ended: record what the peer is known to hold.
    case ended(docId: String)

    var docId: String {
        switch self {
        case .offer(let docId), .receive(let docId, _), .ended(let docId): return docId
        }
    }
}

/// What a step did.
struct ReplicationStepOutcome {
    /// The message to send the peer (nil: nothing to say).
    var reply: Data?
    /// The attachments the document names, sent with `reply`.
    var attachments: [AttachmentDigest] = []
    /// Whether `reply` carries changes.
    var sendsChanges = false
    /// The revision the step wrote, when the peer's message changed the document.
    var written: DocumentChange?
    /// Attachments the document now names whose bytes this datastore lacks.
    var missingBlobs: [AttachmentDigest] = []
}

/// A session's sync states, one per document, loaded from the ledger on
/// first use (when persistent), and the changes its peer sent ahead of
/// their documents' histories. Thread-safe: a replication uses it inside
/// write transactions, which the datastore serializes, and a sync server
/// (``DocumentSyncPeer``) from the lanes of several documents at once,
/// each document's state from one lane at a time.
final class ReplicationSyncStates: @unchecked Sendable {
    // @unchecked: `states` and `held` are read and written only under `lock`.
    let peer: String
    /// Whether this side ignores the changes the peer sends (it only pushes).
    let readOnly: Bool
    /// Whether the states are read from and saved to the ledger.
    let persistent: Bool
    /// The most sync states kept per document, of all peers (nil: no limit).
    let statesPerDocument: Int?
    private let lock = NSLock()
    /// By document id, told apart by scalars: "é" and "e\u{301}" are two documents.
    private var states: [ExactString: SyncState] = [:]
    /// What the peer sent ahead of each document's history.
    private var held: HeldChanges

    init(peer: String, readOnly: Bool, persistent: Bool = true, heldChangeLimits: HeldChangeLimits = HeldChangeLimits(),
         statesPerDocument: Int? = nil)
    {
        self.peer = peer
        self.readOnly = readOnly
        self.persistent = persistent
        self.statesPerDocument = statesPerDocument
        held = HeldChanges(limits: heldChangeLimits)
    }

    /// The document's state: the persisted one (a new session starts from
    /// the heads both sides shared, as ``SyncState/reset()`` keeps), or a new one.
    func state(for docId: String, _ db: GRDB.Database) throws -> SyncState {
        if let state = lock.withLock({ states[ExactString(docId)] }) { return state }
        let saved = persistent ? try ReplicationLedger.syncState(peer: peer, docId: docId, db) : nil
        let state = (saved.flatMap { try? SyncState(bytes: $0) }) ?? SyncState()
        if readOnly { state.isReadOnly = true }
        return lock.withLock {
            if let raced = states[ExactString(docId)] { return raced }
            states[ExactString(docId)] = state
            return state
        }
    }

    /// Takes out the changes held for `docId`.
    func takeHeld(_ docId: String) -> [[UInt8]] {
        lock.withLock { held.take(docId) }
    }

    /// Holds `chunks` for `docId`; throws past the limits (see ``HeldChanges/hold(_:for:)``).
    func hold(_ chunks: [[UInt8]], for docId: String) throws {
        try lock.withLock { try held.hold(chunks, for: docId) }
    }
}

extension Datastore {
    /// This datastore's replica id: its actor, in hex.
    public var replicaId: String { actor.hexString }

    /// The documents a replication to `peer` offers: those changed since
    /// its checkpoint that the peer is not known to hold, in `only` when
    /// given, and passing `filter` when given.
    func replicationOffers(peer: String, only: Set<ExactString>?, filter: (@Sendable (DocumentRevision) -> Bool)?) throws
        -> [String]
    {
        try read { db in
            var docIds = try ReplicationLedger.unsyncedDocuments(peer: peer, db)
            if let only { docIds = docIds.filter { only.contains(ExactString($0)) } }
            guard let filter else { return docIds }
            return try docIds.filter { docId in
                guard let row = try DocumentRow.fetch(db, docId: docId) else { return false }
                return filter(try revision(row, db))
            }
        }
    }

    /// Runs `steps` in one write transaction; returns each one's outcome.
    /// On failure nothing is written, and the loaded documents the steps
    /// touched are dropped from the cache.
    func replicate(_ steps: [ReplicationStep], states: ReplicationSyncStates) throws -> [ReplicationStepOutcome] {
        let outcomes: [ReplicationStepOutcome]
        do {
            outcomes = try write { db in try steps.map { try run($0, states: states, db) } }
        } catch {
            for step in steps { cache.evict(step.docId) }
            throw error
        }
        for case let change? in outcomes.map(\.written) { events.publish(change) }
        return outcomes
    }

    private func run(_ step: ReplicationStep, states: ReplicationSyncStates, _ db: GRDB.Database) throws
        -> ReplicationStepOutcome
    {
        let docId = step.docId
        let state = try states.state(for: docId, db)
        let row = try DocumentRow.fetch(db, docId: docId)
        // The document's revision once the step is done, which the peer may hold.
        var current = row.map { (revId: $0.revId, sequence: $0.sequence) }
        if case .ended = step {
            if let current { try record(state, docId: docId, at: current, states: states, db) }
            return ReplicationStepOutcome()
        }
        let document = try row.map { try loadDocument($0, db, forWriting: true) } ?? newDocument()
        var outcome = ReplicationStepOutcome()
        var named: [AttachmentDigest]?
        if case .receive(_, let message) = step {
            let before = document.heads()
            try receive(message, into: document, state: state, docId: docId, states: states)
            if document.heads() != before {
                let saved = try row.map { try update($0, document: document, since: before, db) }
                    ?? insert(docId, document: document, db)
                cache.store(document, for: docId, at: saved.revId!)
                outcome.written = DocumentChange(docId: docId, revId: saved.revId!, sequence: saved.sequence,
                                                 kind: Self.kind(deleted: saved.deleted, first: row == nil))
                named = try attachmentDigests(of: document)
                outcome.missingBlobs = named!.filter { !holdsBlob($0) }
                current = (saved.revId!, saved.sequence)
            }
        }
        outcome.reply = document.generateSyncMessage(state: state)
        if let reply = outcome.reply {
            outcome.attachments = try named ?? attachmentDigests(of: document)
            outcome.sendsChanges = (try? SyncMessage(bytes: reply))?.changes.isEmpty == false
        }
        if let current { try record(state, docId: docId, at: current, states: states, db) }
        return outcome
    }

    /// Applies the peer's message, then, when it added to the document's
    /// history, the changes the peer sent before that were waiting for
    /// their dependencies; those that still wait leave the document for the
    /// session's ``HeldChanges``. A message that adds nothing cannot have
    /// brought what they wait for, so they are not decoded again: a peer
    /// sending change after change ahead of the history costs each message's
    /// own bytes, not everything held so far. On a throw the caller's
    /// transaction rolls back and the document leaves the cache.
    func receive(_ message: Data, into document: Document, state: SyncState, docId: String,
                 states: ReplicationSyncStates) throws
    {
        let held = states.takeHeld(docId)
        let before = document.heads()
        var stillHeld: [[UInt8]] = []
        do {
            try document.receiveSyncMessage(state: state, message: message)
            if document.heads() != before, !held.isEmpty {
                try document.applyEncodedChanges(encoded: Data(held.joined()))
            } else {
                stillHeld = held
            }
        } catch {
            throw ReplicationError.protocolViolation("document '\(docId)': \(error)")
        }
        try states.hold(stillHeld + document.takeQueuedChanges(), for: docId)
    }

    /// Saves the document's sync state, and that the peer holds its
    /// `current` revision when the heads both share are that revision's.
    func record(_ state: SyncState, docId: String, at current: (revId: String, sequence: Int64),
                states: ReplicationSyncStates, _ db: GRDB.Database) throws
    {
        guard states.persistent else { return }
        let peer = states.peer
        let generation = (try? RevisionId.generation(of: current.revId)) ?? 0
        let peerHoldsIt = RevisionId.make(heads: state.sharedHeads, generation: generation) == current.revId
        try ReplicationLedger.save(syncState: state.encode(), heldSequence: peerHoldsIt ? current.sequence : nil,
                                   peer: peer, docId: docId, keepingAtMost: states.statesPerDocument, db)
    }

    private func attachmentDigests(of document: Document) throws -> [AttachmentDigest] {
        try Set(StoredLayout.everyAttachment(of: document).map { AttachmentDigest(digest: $0.digest, length: $0.length) })
            .sorted { ExactString($0.digest) < ExactString($1.digest) }
    }

    /// Whether this datastore holds the bytes of `attachment`.
    func holdsBlob(_ attachment: AttachmentDigest) -> Bool {
        blobs.contains(digest: attachment.digest, length: attachment.length)
    }

    /// The bytes of the blob with `digest`, checked; nil when this datastore lacks them.
    func blob(digest: String) -> Data? { try? blobs.read(digest: digest) }

    /// Stores blob bytes a peer sent for `digest`.
    /// - Throws: ``ReplicationError/protocolViolation(_:)`` when they do not match it.
    func storeBlob(_ data: Data, digest: String) throws {
        guard BlobStore.digest(of: data) == digest else {
            throw ReplicationError.protocolViolation("the bytes sent for attachment \(digest) do not match it")
        }
        _ = try blobs.write(data, digest: digest)
    }

    func advanceReplicationCheckpoint(peer: String) throws {
        try write { db in try ReplicationLedger.advanceCheckpoint(peer: peer, db) }
    }
}

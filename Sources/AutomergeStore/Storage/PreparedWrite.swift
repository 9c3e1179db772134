@_spi(Storage) import Automerge
import Foundation

/// What a write stores, computed from the document before the write
/// transaction opens: its heads, revision, view, conflict flag, and bytes
/// (the changes it adds, or a whole new snapshot). Encoding and scanning a
/// large document takes time that SQLite's one writer should not wait for.
struct PreparedWrite {
    let heads: Set<ChangeHash>
    /// `heads` as `revisions.heads` stores them (sorting and copying tens
    /// of thousands of heads takes milliseconds the writer should not hold).
    let encodedHeads: Data
    let generation: Int64
    let revId: String
    let view: StoredView
    /// The view as stored: its JSON, checksummed (encoded here, not in the transaction).
    let body: Data
    let conflicted: Bool
    /// Every attachment the document holds, conflicts' hidden values
    /// included (``StoredLayout/everyAttachment(of:)``): the blobs
    /// compaction must keep.
    let attachments: Set<AttachmentMetadata>
    /// The revision's bytes: change chunks, or the whole document saved.
    let bytes: Data
    /// Whether `bytes` are a new snapshot (see ``Datastore/compacts(_:adding:)``).
    let isSnapshot: Bool

    /// A new document's first revision: its changes, as change chunks.
    init(inserting document: Document) throws {
        heads = document.heads()
        encodedHeads = ChangeHash.encode(heads)
        generation = Int64(document.changeCount)
        revId = RevisionId.make(encodedHeads: encodedHeads, generation: Int(generation))
        view = try StoredView(of: document)
        body = try view.stored
        conflicted = try !document.isLinear(since: []) && ConflictScan.hasConflicts(document)
        attachments = try Self.attachments(of: document, view: view, conflicted: conflicted)
        bytes = try document.encodeChangesSince(heads: [])
        isSnapshot = true
    }

    /// The revision after `row`'s: the changes since `previousHeads`, or
    /// the whole document when the chunks after `row`'s snapshot would outgrow it.
    init(updating row: DocumentRow, to document: Document, since previousHeads: Set<ChangeHash>) throws {
        heads = document.heads()
        encodedHeads = ChangeHash.encode(heads)
        let chunk = try document.encodeChangesSince(heads: previousHeads)
        generation = Datastore.generation(after: row, changeCount: document.changeCount)
        revId = RevisionId.make(encodedHeads: encodedHeads, generation: Int(generation))
        view = try StoredView(of: document)
        body = try view.stored
        conflicted = try (row.conflicted || !document.isLinear(since: previousHeads)) && ConflictScan.hasConflicts(document)
        attachments = try Self.attachments(of: document, view: view, conflicted: conflicted)
        isSnapshot = Datastore.compacts(row, adding: chunk.count)
        bytes = isSnapshot ? document.save() : chunk
    }

    /// ``attachments``: with no conflict anywhere, the view's are all there are.
    private static func attachments(of document: Document, view: StoredView, conflicted: Bool) throws
        -> Set<AttachmentMetadata>
    {
        try conflicted ? StoredLayout.everyAttachment(of: document) : Set(view.attachments.values)
    }
}

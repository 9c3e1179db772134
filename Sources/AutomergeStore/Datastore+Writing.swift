@_spi(Storage) import Automerge
import Foundation
import GRDB

/// How an update or delete treats a revision that is no longer current.
public struct WriteOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Apply the edit as a change concurrent to the writes made since the
    /// given revision, instead of failing with ``StoreError/conflict(docId:currentRevId:givenRevId:)``:
    /// fields only one side touched merge; fields both sides set become
    /// Automerge conflicts (see ``Datastore/getConflictedDocumentIds()``).
    public static let merge = WriteOptions(rawValue: 1)
}

extension Datastore {
    /// Creates a document from a new revision: its body (required), its
    /// attachments, and its id (generated when nil).
    /// - Throws: ``StoreError/bodyRequired``, ``StoreError/documentExists(docId:)``,
    ///   ``StoreError/invalidBody(_:)``, ``StoreError/invalidDocumentId(_:)``, attachment errors.
    @discardableResult
    public func createDocumentFromRevision(_ revision: DocumentRevision) throws -> DocumentRevision {
        try createDocumentsFromRevisions([revision])[0]
    }

    /// Creates documents from new revisions in one transaction: all of them
    /// or, when one fails (for the reasons ``createDocumentFromRevision(_:)``
    /// gives), none. Much faster than one call per document for imports.
    @discardableResult
    public func createDocumentsFromRevisions(_ revisions: [DocumentRevision]) throws -> [DocumentRevision] {
        let creations = try revisions.map { revision -> (docId: String?, edit: (Document, String) throws -> Void) in
            guard revision.hasBody else { throw StoreError.bodyRequired }
            let body = try StoredLayout.validate(revision.body)
            return (revision.docId, { document, docId in
                try self.write(body: body, attachments: revision.attachments, into: document, generation: 1, docId: docId)
            })
        }
        return try create(creations)
    }

    /// An empty document that writes as this datastore.
    func newDocument() -> Document {
        let document = Document()
        document.actor = actor
        return document
    }

    /// Creates one document per entry in one transaction: its id (generated
    /// when nil), and `edit` makes its first change on an empty document.
    func create(_ creations: [(docId: String?, edit: (Document, String) throws -> Void)]) throws -> [DocumentRevision] {
        let creations = try creations.map { docId, edit in
            let docId = docId ?? UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try Self.validate(docId: docId)
            return (docId, edit)
        }
        let saved = try write { db in
            try creations.map { docId, edit in
                guard try DocumentRow.fetch(db, docId: docId) == nil else { throw StoreError.documentExists(docId: docId) }
                let document = newDocument()
                try edit(document, docId)
                if document.keys(obj: .ROOT).isEmpty {
                    // An empty body makes no op, and a document of no
                    // change would not replicate (see ``DocumentWriter``).
                    try document.put(obj: .ROOT, key: StoredLayout.deletedKey, value: .Boolean(false))
                }
                document.commitWith(timestamp: Date())
                return try insert(docId, document: document, db)
            }
        }
        for revision in saved {
            events.publish(DocumentChange(docId: revision.docId!, revId: revision.revId!, sequence: revision.sequence,
                                          kind: .created))
        }
        return saved
    }

    /// Saves the body and attachments of `revision` as the document's next
    /// revision, with the fewest ops that make the stored body equal it.
    /// `revision` must be the current revision unless `options` has
    /// ``WriteOptions/merge``. An update that changes nothing returns the
    /// current revision and writes nothing.
    /// - Throws: ``StoreError/conflict(docId:currentRevId:givenRevId:)`` for a stale
    ///   revision, ``StoreError/documentNotFound(docId:revId:)``, ``StoreError/documentDeleted(docId:)``,
    ///   body and attachment errors.
    @discardableResult
    public func updateDocumentFromRevision(_ revision: DocumentRevision, options: WriteOptions = []) throws
        -> DocumentRevision
    {
        let body = try StoredLayout.validate(revision.body)
        return try modify(revision, options: options) { document, generation, docId in
            try write(body: body, attachments: revision.attachments, into: document, generation: generation, docId: docId)
        }
    }

    /// Deletes the document from its current revision (or, with
    /// ``WriteOptions/merge``, from an older one): the body and attachments
    /// are removed and the document is marked deleted. Returns the deleted revision.
    @discardableResult
    public func deleteDocumentFromRevision(_ revision: DocumentRevision, options: WriteOptions = []) throws
        -> DocumentRevision
    {
        try modify(revision, options: options) { document, _, _ in
            try Self.markDeleted(document)
        }
    }

    /// Deletes the document whatever its current revision.
    @discardableResult
    public func deleteDocumentWithId(_ docId: String) throws -> DocumentRevision {
        try deleteDocumentFromRevision(try getDocumentWithId(docId))
    }

    /// Makes the document's body `body` and its attachments `attachments`
    /// (new bytes stored, unchanged ones keeping their `revpos`).
    /// (A nil body leaves the body as it is.)
    func write(body: [ExactString: BodyValue]?, attachments: Attachments, into document: Document, generation: Int64,
               docId: String) throws
    {
        if let body { try BodyWriter.write(body, into: document) }
        let current = try StoredLayout.attachments(of: document)
        try StoredLayout.write(try storedAttachments(attachments, current: current, generation: generation, docId: docId),
                               into: document)
    }

    static func markDeleted(_ document: Document) throws {
        try BodyWriter.write([:], into: document)
        if try document.get(obj: .ROOT, key: StoredLayout.attachmentsKey) != nil {
            try document.delete(obj: .ROOT, key: StoredLayout.attachmentsKey)
        }
        try document.put(obj: .ROOT, key: StoredLayout.deletedKey, value: .Boolean(true))
    }

    /// An edit of an existing document from `revision`: `edit` makes its
    /// changes on the current document, or on a fork at `revision` merged
    /// back afterwards.
    func modify(_ revision: DocumentRevision, options: WriteOptions,
                edit: (Document, _ generation: Int64, _ docId: String) throws -> Void) throws -> DocumentRevision
    {
        guard let docId = revision.docId else { throw StoreError.documentNotFound(docId: "") }
        let (saved, changed) = try write { db -> (DocumentRevision, Bool) in
            guard let row = try DocumentRow.fetch(db, docId: docId) else { throw StoreError.documentNotFound(docId: docId) }
            guard !row.deleted else { throw StoreError.documentDeleted(docId: docId) }
            let document = try loadDocument(row, db, forWriting: true)
            do {
                let previousHeads = document.heads()
                // The generation of the revision the write makes: it adds one change.
                let generation = Self.generation(after: row, changeCount: document.changeCount + 1)
                if revision.revId == row.revId {
                    try edit(document, generation, docId)
                    document.commitWith(timestamp: Date())
                } else {
                    guard options.contains(.merge) else {
                        throw StoreError.conflict(docId: docId, currentRevId: row.revId, givenRevId: revision.revId)
                    }
                    let base = try document.forkAt(heads: try heads(of: row, revId: revision.revId, db))
                    try edit(base, generation, docId)
                    base.commitWith(timestamp: Date())
                    try document.merge(other: base)
                }
                guard document.heads() != previousHeads else { return (try self.revision(row, document: document), false) }
                let saved = try update(row, document: document, since: previousHeads, db)
                cache.store(document, for: docId, at: saved.revId!)
                return (saved, true)
            } catch {
                cache.evict(docId)
                throw error
            }
        }
        if changed {
            events.publish(DocumentChange(docId: docId, revId: saved.revId!, sequence: saved.sequence,
                                          kind: saved.deleted ? .deleted : .updated))
        }
        return saved
    }

    /// The heads of a stored revision of `row`'s document.
    func heads(of row: DocumentRow, revId: String?, _ db: GRDB.Database) throws -> Set<ChangeHash> {
        try storedRevision(of: row, revId: revId, db).heads
    }

    /// A stored revision of `row`'s document (the document's current row).
    func storedRevision(of row: DocumentRow, revId: String?, _ db: GRDB.Database) throws -> StoredRevision {
        try storedRevisions(of: row, from: revId, downTo: nil, db).first!
    }

    /// The stored revisions of `row`'s document from `revId` back to
    /// generation `stop` (`revId`'s own when nil), newest first: those the
    /// walk back from the current revision (see ``RevisionChain``) finds,
    /// so fewer when the chain is broken below `revId`.
    func storedRevisions(of row: DocumentRow, from revId: String?, downTo stop: Int64?, _ db: GRDB.Database) throws
        -> ArraySlice<StoredRevision>
    {
        guard let revId else { throw StoreError.documentNotFound(docId: row.docId, revId: "(none)") }
        guard let generation = (try? RevisionId.generation(of: revId)).map(Int64.init), generation <= row.generation
        else { throw StoreError.documentNotFound(docId: row.docId, revId: revId) }
        let walked = try RevisionChain.walk(docId: row.docId, from: row.sequence, downTo: min(stop ?? generation, generation), db)
        guard let index = walked.firstIndex(where: { $0.generation == generation }), walked[index].revId == revId
        else { throw StoreError.documentNotFound(docId: row.docId, revId: revId) }
        return walked[index...]
    }

    static func validate(docId: String) throws {
        guard !docId.isEmpty, !StoredLayout.isReserved(docId) else { throw StoreError.invalidDocumentId(docId) }
    }
}

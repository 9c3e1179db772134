@_spi(Storage) import Automerge
import Foundation
import GRDB

/// A document's row in `documents`.
struct DocumentRow: Sendable {
    var docId: String
    var revId: String
    var generation: Int64
    var deleted: Bool
    var conflicted: Bool
    var sequence: Int64
    /// The revision whose bytes are the document's snapshot.
    var snapshotGeneration: Int64
    var snapshotLength: Int64
    /// The bytes of the revisions after the snapshot's.
    var chunkBytes: Int64
    /// The stored view as JSON (nil for rows written before schema v3).
    var body: Data?

    /// Reads the columns ``columns`` lists, by position.
    init(_ row: Row) {
        docId = row[0]
        revId = row[1]
        generation = row[2]
        deleted = row[3]
        conflicted = row[4]
        sequence = row[5]
        snapshotGeneration = row[6]
        snapshotLength = row[7]
        chunkBytes = row[8]
        body = row[9]
    }

    /// The columns ``init(_:)`` reads, qualified so that a join with
    /// `revisions` (see ``latestWrites``) may select them.
    static let columns = """
        documents.docId, documents.revId, documents.generation, documents.deleted, documents.conflicted,
        documents.sequence, documents.snapshotGeneration, documents.snapshotLength, documents.chunkBytes, documents.body
        """

    /// A query's FROM clause for the documents written after sequence `?`,
    /// each once, at its latest write, in sequence order.
    static let latestWrites = """
        revisions JOIN documents ON documents.docId = revisions.docId AND documents.sequence = revisions.sequence
        WHERE revisions.sequence > ?
        """

    /// The sequence of the datastore's latest write, 0 before the first.
    static func latestSequence(_ db: GRDB.Database) throws -> Int64 {
        try Int64.fetchOne(try db.cachedStatement(sql: "SELECT COALESCE(MAX(sequence), 0) FROM revisions")) ?? 0
    }

    static func fetch(_ db: GRDB.Database, docId: String) throws -> DocumentRow? {
        try DatabaseError.namingCorruption(of: docId) {
            // Read in place from the statement (a cursor's row, valid while
            // the cursor stands on it), not from a copied `Row`.
            let cursor = try Row.fetchCursor(try db.cachedStatement(sql: "SELECT \(columns) FROM documents WHERE docId = ?"),
                                             arguments: [docId])
            guard let row = try cursor.next() else { return nil }
            return withExtendedLifetime(cursor) { DocumentRow(row) }
        }
    }
}

extension DatabaseError {
    /// Runs `body`, reporting a damaged database file met on the way as
    /// ``StoreError/corruptDocument(docId:reason:)`` for the document being read.
    static func namingCorruption<T>(of docId: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            throw StoreError.corruptDocument(docId: docId, reason: "the database file is damaged (\(error.message ?? "\(error)"))")
        }
    }
}


extension Datastore {
    /// The document's Automerge document at its stored revision, from its
    /// snapshot and chunks. Writers (`forWriting`, inside the serialized
    /// write transaction) share one cached instance per document and edit
    /// it; readers load their own from the transaction's snapshot of the
    /// database, so they never see a write half done.
    func loadDocument(_ row: DocumentRow, _ db: GRDB.Database, forWriting: Bool = false) throws -> Document {
        if forWriting, let cached = cache.document(row.docId, at: row.revId) { return cached }
        let bytes = try DatabaseError.namingCorruption(of: row.docId) { try storedBytes(of: row, db) }
        let document: Document
        do {
            document = try Document(ownBytes: bytes, actor: actor)
        } catch {
            throw StoreError.corruptDocument(docId: row.docId, reason: "its Automerge bytes do not load: \(error)")
        }
        let heads = document.heads()
        guard RevisionId.make(heads: heads, generation: Int(row.generation)) == row.revId else {
            throw StoreError.corruptDocument(docId: row.docId, reason: "its bytes are not at revision \(row.revId)")
        }
        if forWriting { cache.store(document, for: row.docId, at: row.revId) }
        return document
    }

    /// The document's Automerge bytes: those of its revisions from its
    /// snapshot's to its current one, each present.
    private func storedBytes(of row: DocumentRow, _ db: GRDB.Database) throws -> Data {
        let revisions = try RevisionChain.sinceSnapshot(of: row, db)
        guard revisions.first?.generation == row.generation, revisions.last?.generation == row.snapshotGeneration else {
            throw StoreError.corruptDocument(docId: row.docId,
                                             reason: "its revisions \(row.snapshotGeneration) to \(row.generation) are not all stored")
        }
        var bytes = Data()
        for revision in revisions.reversed() {
            guard let chunk = revision.bytes else {
                throw StoreError.corruptDocument(docId: row.docId, reason: "revision \(revision.generation) has lost its bytes")
            }
            bytes.append(chunk)
        }
        return bytes
    }

    /// The view of the row's current revision: its stored JSON, or (for
    /// rows from before schema v3) its loaded document's.
    func view(of row: DocumentRow, _ db: GRDB.Database) throws -> StoredView {
        if let stored = row.body { return try StoredView(stored: stored, docId: row.docId) }
        return try StoredView(of: try loadDocument(row, db))
    }

    /// The current revision the row describes.
    func revision(_ row: DocumentRow, _ db: GRDB.Database) throws -> DocumentRevision {
        revision(docId: row.docId, revId: row.revId, sequence: row.sequence, view: try view(of: row, db))
    }

    /// The revision the row and its document describe.
    func revision(_ row: DocumentRow, document: Document) throws -> DocumentRevision {
        try revision(docId: row.docId, revId: row.revId, sequence: row.sequence, document: document)
    }

    func revision(docId: String, revId: String, sequence: Int64, document: Document) throws -> DocumentRevision {
        revision(docId: docId, revId: revId, sequence: sequence, view: try StoredView(of: document))
    }

    func revision(docId: String, revId: String, sequence: Int64, view: StoredView) -> DocumentRevision {
        var attachments = Attachments()
        for (name, metadata) in view.attachments {
            attachments[name.string] = SavedAttachment(name: name.string, type: metadata.type, length: metadata.length,
                                                digest: metadata.digest, revpos: metadata.revpos, docId: docId, blobs: blobs)
        }
        return DocumentRevision(docId: docId, revId: revId, deleted: view.deleted, sequence: sequence, body: view.body,
                                attachments: attachments, datastore: self)
    }
}

extension ChangeHash {
    /// Heads as stored in `revisions.heads`: the sorted hashes' bytes, end to end.
    static func encode(_ heads: Set<ChangeHash>) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(heads.count * 32)
        for head in heads.sorted() { head.append(to: &bytes) }
        return Data(bytes)
    }

    static func decode(_ data: Data) -> Set<ChangeHash>? {
        guard data.count % 32 == 0 else { return nil }
        var heads = Set<ChangeHash>()
        var offset = data.startIndex
        while offset < data.endIndex {
            guard let hash = ChangeHash(data: data[offset..<offset + 32]) else { return nil }
            heads.insert(hash)
            offset += 32
        }
        return heads
    }
}

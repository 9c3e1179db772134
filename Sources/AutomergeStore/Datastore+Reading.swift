import Automerge
import Foundation
import GRDB

extension Datastore {
    /// The current revision of a document (deleted documents included, with
    /// ``DocumentRevision/deleted`` set).
    /// - Throws: ``StoreError/documentNotFound(docId:revId:)``, ``StoreError/corruptDocument(docId:reason:)``.
    public func getDocumentWithId(_ docId: String) throws -> DocumentRevision {
        try read { db in
            guard let row = try DocumentRow.fetch(db, docId: docId) else { throw StoreError.documentNotFound(docId: docId) }
            return try revision(row, db)
        }
    }

    /// A given revision of a document, current or older.
    public func getDocumentWithId(_ docId: String, revId: String) throws -> DocumentRevision {
        try read { db in
            guard let row = try DocumentRow.fetch(db, docId: docId) else { throw StoreError.documentNotFound(docId: docId) }
            if revId == row.revId { return try revision(row, db) }
            return try revision(revId, of: row, document: try loadDocument(row, db), db)
        }
    }

    /// Revision `revId` of the document `row` and `document` hold now.
    private func revision(_ revId: String, of row: DocumentRow, document: Document, _ db: GRDB.Database) throws
        -> DocumentRevision
    {
        if revId == row.revId { return try revision(row, document: document) }
        let stored = try storedRevision(of: row, revId: revId, db)
        return try revision(docId: row.docId, revId: revId, sequence: stored.sequence,
                            document: try document.forkAt(heads: stored.heads))
    }

    /// Every document that is not deleted, by id.
    public func getAllDocuments() throws -> [DocumentRevision] {
        try getAllDocuments(offset: 0, limit: .max, descending: false)
    }

    /// A page of the documents that are not deleted, by id.
    public func getAllDocuments(offset: Int, limit: Int, descending: Bool) throws -> [DocumentRevision] {
        try read { db in
            let rows = try Row.fetchAll(try db.cachedStatement(sql: """
                SELECT \(DocumentRow.columns) FROM documents WHERE deleted = 0
                ORDER BY docId \(descending ? "DESC" : "ASC") LIMIT ? OFFSET ?
                """), arguments: [Int64(clamping: max(0, limit)), max(0, offset)]).map(DocumentRow.init)
            return try rows.map { try revision($0, db) }
        }
    }

    /// The current revisions of the documents with these ids that exist, in the order given.
    public func getDocumentsWithIds(_ docIds: [String]) throws -> [DocumentRevision] {
        try read { db in
            try docIds.compactMap { docId in
                guard let row = try DocumentRow.fetch(db, docId: docId) else { return nil }
                return try revision(row, db)
            }
        }
    }

    /// How many documents are not deleted.
    public var documentCount: Int {
        get throws { try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents WHERE deleted = 0") ?? 0 } }
    }

    /// The revisions of `revision`'s document up to it, newest first.
    public func getRevisionHistory(_ revision: DocumentRevision) throws -> [DocumentRevision] {
        guard let docId = revision.docId, let revId = revision.revId else { return [] }
        return try read { db in
            guard let row = try DocumentRow.fetch(db, docId: docId) else {
                throw StoreError.documentNotFound(docId: docId, revId: revId)
            }
            let history = try storedRevisions(of: row, from: revId, downTo: 1, db)
            guard history.last!.previous == nil else {
                throw StoreError.corruptDocument(docId: docId, reason: "revisions before \(revId) are missing")
            }
            let document = try loadDocument(row, db)
            return try history.map { old in
                if old.revId == row.revId { return try self.revision(row, document: document) }
                return try self.revision(docId: docId, revId: old.revId, sequence: old.sequence,
                                         document: try document.forkAt(heads: old.heads))
            }
        }
    }
}

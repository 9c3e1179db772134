import Automerge
import Foundation
import GRDB

/// Chooses the revision that ends a document's conflicts.
public protocol ConflictResolver {
    /// Given the document's alternatives (the current revision first, then
    /// one per further concurrent value of its conflicted fields), returns
    /// the revision to keep: one of them, or one of them edited. Nil leaves
    /// the document conflicted.
    func resolve(docId: String, conflicts: [DocumentRevision]) -> DocumentRevision?
}

extension Datastore {
    /// The ids of documents with conflicted fields, sorted: fields two
    /// writers set concurrently (an update merged from an older revision,
    /// or, with replication, another peer's edit), where Automerge keeps
    /// every value and reads pick one.
    public func getConflictedDocumentIds() throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT docId FROM documents WHERE conflicted = 1 ORDER BY docId") }
    }

    /// Resolves a document's conflicts with `resolver`: every conflicted
    /// field takes the value of the revision it returns.
    /// Returns the new revision, or nil when there was nothing to resolve or
    /// the resolver declined.
    @discardableResult
    public func resolveConflictsForDocument(_ docId: String, resolver: some ConflictResolver) throws -> DocumentRevision? {
        let (current, document) = try read { db -> (DocumentRevision, Document) in
            guard let row = try DocumentRow.fetch(db, docId: docId) else { throw StoreError.documentNotFound(docId: docId) }
            let document = try loadDocument(row, db)
            return (try revision(row, document: document), document)
        }
        let conflicts = try ConflictScan.alternatives(in: document)
        guard !conflicts.isEmpty else { return nil }
        let count = conflicts.map(\.values.count).max()!
        let alternatives = (0..<count).map { index -> DocumentRevision in
            var body = current.body
            for conflict in conflicts { body.set(conflict.values[min(index, conflict.values.count - 1)], at: conflict.path) }
            return DocumentRevision(docId: docId, revId: current.revId!, deleted: current.deleted,
                                    sequence: current.sequence, body: body.mapValue ?? [:],
                                    attachments: current.attachments, datastore: self)
        }
        guard let chosen = resolver.resolve(docId: docId, conflicts: alternatives) else { return nil }
        chosen.docId = docId
        chosen.revId = current.revId
        let body = try StoredLayout.validate(chosen.body)
        return try modify(chosen, options: []) { document, generation, _ in
            try write(body: body, attachments: chosen.attachments, into: document, generation: generation, docId: docId)
            // Equal values make no ops, so a field whose winner was chosen is
            // still conflicted: put it again, over every concurrent value.
            for (object, key) in try ConflictScan.conflicts(in: document) {
                let path = try ConflictScan.path(to: object, in: document) + [.key(key)]
                try BodyWriter.replace(.key(object, key), with: BodyValue.map(body).value(at: path) ?? .null, of: document)
            }
        }
    }
}

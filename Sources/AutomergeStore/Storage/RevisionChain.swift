import Automerge
import Foundation
import GRDB

/// One stored revision, as ``RevisionChain`` reads it.
struct StoredRevision {
    var sequence: Int64
    var generation: Int64
    var revId: String
    var heads: Set<ChangeHash>
    /// The sequence of the document's revision before it; nil for its first.
    var previous: Int64?
    /// The Automerge bytes the revision's write added (nil once a later
    /// snapshot made them unneeded).
    var bytes: Data?
}

/// A document's revisions, newest first, found by following each revision
/// row's `previous` (the sequence of the document's revision before it)
/// back from a known one. `revisions` has no index by document: a write
/// then dirties the revision row's page and the document's, not also an
/// index page at a random place (see ``StoreSchema``). Reading a revision
/// costs a row-id lookup per revision between it and the one the walk
/// starts from; every walk the store makes starts at the document's
/// current revision or at the one it wants.
///
/// The walk takes only rows of the same document whose generation is less
/// than the last (a revision adds one change or more), and stops at a
/// given generation: it ends after at most (start - stop + 1) rows,
/// whatever the file holds.
enum RevisionChain {
    /// The revisions of `docId` from the one at `sequence` back to
    /// generation `stop` (inclusive), newest first; fewer when a row is
    /// missing or does not follow (the caller checks what it needs).
    static func walk(docId: String, from sequence: Int64, downTo stop: Int64, _ db: GRDB.Database) throws
        -> [StoredRevision]
    {
        // Row by row rather than as one recursive query: a walk is mostly
        // one to three rows, and SQLite's recursive queries cost several
        // times a lookup to set up.
        let statement = try db.cachedStatement(sql: """
            SELECT docId, generation, previous, revId, heads, bytes FROM revisions WHERE sequence = ?
            """)
        var revisions = [StoredRevision]()
        var next: Int64? = sequence
        while let sequence = next {
            let cursor = try Row.fetchCursor(statement, arguments: [sequence])
            guard let row = try cursor.next() else { break }
            let found: StoredRevision? = try withExtendedLifetime(cursor) {
                let generation: Int64 = row[1]
                guard ExactString(row[0] as String) == ExactString(docId), revisions.last.map({ generation < $0.generation }) ?? true else {
                    return nil
                }
                let revId: String = row[3]
                guard let heads = ChangeHash.decode(row[4]) else {
                    throw StoreError.corruptDocument(docId: docId, reason: "revision \(revId) has malformed heads")
                }
                let previous: Int64? = row[2]
                next = generation > stop ? previous : nil
                return StoredRevision(sequence: sequence, generation: generation, revId: revId, heads: heads,
                                      previous: previous, bytes: row[5])
            }
            guard let found else { break }
            revisions.append(found)
        }
        return revisions
    }

    /// The revisions of `row`'s document from its current one back to its snapshot's.
    static func sinceSnapshot(of row: DocumentRow, _ db: GRDB.Database) throws -> [StoredRevision] {
        try walk(docId: row.docId, from: row.sequence, downTo: row.snapshotGeneration, db)
    }
}

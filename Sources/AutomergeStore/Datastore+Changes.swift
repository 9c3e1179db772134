import Foundation
import GRDB

/// One write as the changes feed reports it.
public struct DocumentChange: Hashable, Sendable {
    /// What the write did.
    public enum Kind: String, Hashable, Sendable {
        case created, updated, deleted
    }

    public let docId: String
    public let revId: String
    /// The datastore's sequence number of the write (increasing, never reused).
    public let sequence: Int64
    public let kind: Kind
}

/// A page of the changes feed.
public struct ChangesPage: Sendable {
    /// Each changed document once, at its latest write, in sequence order.
    public let results: [DocumentChange]
    /// Pass this as `since` for the next page (the last result's sequence,
    /// or `since` itself when there were none).
    public let lastSequence: Int64
}

/// The live change streams of one datastore.
final class ChangeEventHub: @unchecked Sendable {
    // @unchecked: `continuations` is read and written only under `lock`.
    private let lock = NSLock()
    private var continuations: [UUID: AsyncStream<DocumentChange>.Continuation] = [:]

    func stream() -> AsyncStream<DocumentChange> {
        let id = UUID()
        return AsyncStream { continuation in
            lock.withLock { continuations[id] = continuation }
            continuation.onTermination = { [weak self] _ in
                guard let self else { return }
                self.lock.withLock { _ = self.continuations.removeValue(forKey: id) }
            }
        }
    }

    func publish(_ change: DocumentChange) {
        for continuation in lock.withLock({ Array(continuations.values) }) { continuation.yield(change) }
    }
}

extension Datastore {
    /// The documents changed after sequence `since`, each once at its
    /// latest write, at most `limit` of them, in sequence order: what an
    /// indexer or a replicator reads to catch up.
    public func changes(since: Int64 = 0, limit: Int = 1000) throws -> ChangesPage {
        let results = try read { db in
            try Row.fetchAll(db, sql: """
                SELECT documents.docId, documents.revId, documents.sequence, revisions.previous, documents.deleted
                FROM \(DocumentRow.latestWrites) ORDER BY revisions.sequence LIMIT ?
                """, arguments: [since, max(0, limit)]).map { row in
                DocumentChange(docId: row["docId"], revId: row["revId"], sequence: row["sequence"],
                               kind: Self.kind(deleted: row["deleted"], first: (row["previous"] as Int64?) == nil))
            }
        }
        return ChangesPage(results: results, lastSequence: results.last?.sequence ?? since)
    }

    /// Every write from now on, as it commits, until the stream is dropped.
    public func changeEvents() -> AsyncStream<DocumentChange> { events.stream() }

    /// A write's kind: `first` when it made the document's first revision
    /// here (a replicated document's first may hold several changes).
    static func kind(deleted: Bool, first: Bool) -> DocumentChange.Kind {
        deleted ? .deleted : first ? .created : .updated
    }
}

@_spi(Storage) import Automerge
import Foundation

/// Loaded Automerge documents by id, each with the revision it holds, so
/// that a write to a document written a moment ago does not load and decode
/// it again. An entry is used only when its revision is the stored one.
///
/// Bounded by memory, least recently used first out: each entry counts its
/// document's estimated footprint (``Document/approximateMemoryFootprint``,
/// taken when stored), and storing past ``byteLimit`` evicts the entries
/// used longest ago. A sync server with more live documents than fit keeps
/// the busiest; one with fewer keeps them all. Every operation is O(1).
final class DocumentCache: @unchecked Sendable {
    // @unchecked: `entries`, `totalBytes` and `limit` are read and written only under `lock`.
    /// The default bound: 256 MiB of estimated document memory.
    static let defaultByteLimit = 256 << 20

    private final class Entry {
        let docId: ExactString
        var revId: String
        var document: Document
        var bytes: Int
        // Both links weak: `entries` owns every entry, and a strong chain
        // would free a long list by recursion.
        weak var newer: Entry?
        weak var older: Entry?

        init(docId: ExactString, revId: String, document: Document, bytes: Int) {
            self.docId = docId
            self.revId = revId
            self.document = document
            self.bytes = bytes
        }
    }

    private let lock = NSLock()
    /// By document id, told apart by scalars: "é" and "e\u{301}" are two documents.
    private var entries: [ExactString: Entry] = [:]
    /// The least and the most recently used entries, the ends of the list linked by `newer` and `older`.
    private weak var oldest: Entry?
    private weak var newest: Entry?
    private var totalBytes = 0
    private var limit = DocumentCache.defaultByteLimit

    /// The most estimated bytes the cached documents may hold together.
    var byteLimit: Int {
        get { lock.withLock { limit } }
        set {
            let released = lock.withLock {
                limit = max(0, newValue)
                return evictPastLimit()
            }
            withExtendedLifetime(released) {}
        }
    }

    /// The cached document at `revId`, which becomes the most recently used.
    func document(_ docId: String, at revId: String) -> Document? {
        lock.withLock {
            guard let entry = entries[ExactString(docId)], entry.revId == revId else { return nil }
            moveToNewest(entry)
            return entry.document
        }
    }

    /// Caches `document` at `revId`. The documents it replaces or evicts
    /// are freed after the lock is let go (freeing a large one takes time
    /// every other reader and writer would wait for).
    func store(_ document: Document, for docId: String, at revId: String) {
        let bytes = document.approximateMemoryFootprint
        let docId = ExactString(docId)
        let released = lock.withLock { () -> [Document] in
            var released: [Document] = []
            if let entry = entries[docId] {
                totalBytes += bytes - entry.bytes
                released.append(entry.document)
                (entry.revId, entry.document, entry.bytes) = (revId, document, bytes)
                moveToNewest(entry)
            } else {
                let entry = Entry(docId: docId, revId: revId, document: document, bytes: bytes)
                entries[docId] = entry
                totalBytes += bytes
                append(entry)
            }
            return released + evictPastLimit()
        }
        withExtendedLifetime(released) {}
    }

    func evict(_ docId: String) {
        let released = lock.withLock { () -> Entry? in
            guard let entry = entries.removeValue(forKey: ExactString(docId)) else { return nil }
            unlink(entry)
            totalBytes -= entry.bytes
            return entry
        }
        withExtendedLifetime(released) {}
    }

    func evictAll() {
        let released = lock.withLock { () -> [ExactString: Entry] in
            let released = entries
            entries = [:]
            oldest = nil
            newest = nil
            totalBytes = 0
            return released
        }
        withExtendedLifetime(released) {}
    }

    /// The number of cached documents and their estimated bytes.
    var usage: (count: Int, bytes: Int) { lock.withLock { (entries.count, totalBytes) } }

    // MARK: The recency list; the caller holds the lock.

    /// Evicts the least recently used entries past the limit; returns their documents, for the caller to free.
    private func evictPastLimit() -> [Document] {
        var evicted: [Document] = []
        while totalBytes > limit, let victim = oldest {
            evicted.append(victim.document)
            entries[victim.docId] = nil
            unlink(victim)
            totalBytes -= victim.bytes
        }
        return evicted
    }

    private func append(_ entry: Entry) {
        entry.older = newest
        entry.newer = nil
        if let newest { newest.newer = entry } else { oldest = entry }
        newest = entry
    }

    private func unlink(_ entry: Entry) {
        if let older = entry.older { older.newer = entry.newer } else { oldest = entry.newer }
        if let newer = entry.newer { newer.older = entry.older } else { newest = entry.older }
        entry.newer = nil
        entry.older = nil
    }

    private func moveToNewest(_ entry: Entry) {
        guard newest !== entry else { return }
        unlink(entry)
        append(entry)
    }
}

import Foundation
import GRDB
import AutomergeConformance
import Testing
@testable import AutomergeStore

/// Damage on disk costs the damaged document only: reading what is damaged
/// gives a typed error naming it, never other content, and every other
/// document stays readable and writable. A document is stored twice over:
/// its Automerge bytes (chunks with checksums) and its current view as
/// checksummed JSON, which plain reads use.
@Suite("Datastore: corruption")
struct CorruptionTests {
    /// A datastore with one large document, `victim`, whose row spans many
    /// database pages, and 20 small ones beside it; the file is
    /// checkpointed and closed, ready to be damaged.
    struct DamagedStore {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("automerge-store-tests-\(getpid())").appendingPathComponent(UUID().uuidString)
        var file: URL { directory.appendingPathComponent("docs/datastore.sqlite") }
        let text: String
        /// Where a run of the victim's text is found in the file, once in
        /// each copy (its Automerge bytes and its stored view; which is which
        /// depends on page order, so the tests damage each in turn).
        private(set) var copies: [Int] = []
        private(set) var pageSize = 0

        init() throws {
            var random = SeededGenerator(seed: 7)
            let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,")
            text = String((0..<30_000).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            pageSize = try Self.populate(directory, victimText: text)
            let bytes = try Data(contentsOf: file)
            let utf8 = Array(text.utf8)
            for start in stride(from: 5000, to: utf8.count - 32, by: 32) {
                let probe = Data(utf8[start..<start + 32])
                var found: [Int] = []
                var from = bytes.startIndex
                while let range = bytes.range(of: probe, in: from..<bytes.endIndex) {
                    found.append(range.lowerBound)
                    from = range.upperBound
                }
                if found.count == 2 {
                    copies = found
                    return
                }
            }
            Issue.record("no run of the victim's text is found once in each copy")
        }

        /// Writes the documents, checkpoints the WAL into the file and closes
        /// the datastore; returns the page size.
        private static func populate(_ directory: URL, victimText: String) throws -> Int {
            let datastore = try DatastoreManager(directory: directory.path).datastoreNamed("docs")
            let victim = DocumentRevision(docId: "victim")
            victim.body = ["text": .string(victimText)]
            try datastore.createDocumentFromRevision(victim)
            for index in 0..<20 {
                let other = DocumentRevision(docId: "other-\(index)")
                other.body = ["index": .int(Int64(index))]
                try datastore.createDocumentFromRevision(other)
            }
            _ = try datastore.database.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            return try datastore.database.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size")! }
        }

        /// Overwrites `bytes` at `offset` of the closed database file.
        func overwrite(at offset: Int, with bytes: [UInt8]) throws {
            let handle = try FileHandle(forUpdating: file)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(offset))
            handle.write(Data(bytes))
        }

        /// Every other document reads as written and takes an update.
        func expectOthersReadableAndWritable(_ datastore: Datastore) throws {
            for index in 0..<20 {
                let other = try datastore.getDocumentWithId("other-\(index)")
                #expect(other.body == ["index": .int(Int64(index))])
                other.body["seen"] = true
                try datastore.updateDocumentFromRevision(other)
            }
        }

        /// Why each of the victim's readings fails (nil: it reads, and gives
        /// the original text): its current revision, from the stored view;
        /// its Automerge document, read and (by an update) written.
        func failingReadings(_ datastore: Datastore) -> (view: String?, automerge: String?) {
            func reason(_ call: () throws -> Void) -> String? {
                switch storeError(call) {
                case nil: return nil
                case .corruptDocument(docId: "victim", let reason)?: return reason
                case let other?:
                    Issue.record("not corruptDocument(victim): \(other)")
                    return "\(other)"
                }
            }
            let view = reason {
                let body = try datastore.getDocumentWithId("victim").body
                #expect(body["text"] == .string(text), "other content read")
            }
            let automerge = reason {
                let current = DocumentRevision(docId: "victim")
                current.datastore = datastore
                current.revId = try datastore.changes(since: 0).results.first { $0.docId == "victim" }?.revId
                _ = try current.automergeDocument()
            }
            return (view, automerge)
        }
    }

    @Test("the victim's text altered on disk, in each of its two copies: the copy read names the document; the others read and write")
    func damagedBytes() throws {
        var caught: [String] = []
        for copy in 0..<2 {
            let store = try DamagedStore()
            try #require(store.copies.count == 2)
            try store.overwrite(at: store.copies[copy] + 8, with: [UInt8](repeating: 0x5A, count: 16))
            let datastore = try DatastoreManager(directory: store.directory.path).datastoreNamed("docs")
            let failures = store.failingReadings(datastore)
            if let view = failures.view {
                #expect(view == "its stored body fails its checksum")
                caught.append("view")
            }
            if let automerge = failures.automerge {
                #expect(automerge.contains("do not load"), "\(automerge)")
                caught.append("automerge")
            }
            try store.expectOthersReadableAndWritable(datastore)
            #expect(try datastore.documentCount == 21)
        }
        #expect(caught.sorted() == ["automerge", "view"], "each copy's damage is caught where that copy is read")
    }

    @Test("a database page broken at the SQLite level: reading through it names the document; the others read and write")
    func damagedPage() throws {
        for copy in 0..<2 {
            let store = try DamagedStore()
            try #require(store.copies.count == 2)
            // The page holding the copy is an overflow page of the victim's
            // row; its first 4 bytes link to the next one. Point them past
            // the end of the file.
            try store.overwrite(at: store.copies[copy] / store.pageSize * store.pageSize, with: [0x7F, 0xFF, 0xFF, 0xF0])
            let datastore = try DatastoreManager(directory: store.directory.path).datastoreNamed("docs")
            let failures = store.failingReadings(datastore)
            let reasons = [failures.view, failures.automerge].compactMap { $0 }
            #expect(!reasons.isEmpty, "copy \(copy): the broken page went unnoticed")
            for reason in reasons { #expect(reason.contains("damaged"), "\(reason)") }
            try store.expectOthersReadableAndWritable(datastore)
        }
    }

    @Test("a stored view altered behind the store's back fails its checksum, naming the document")
    func alteredView() throws {
        let store = try TemporaryStore()
        let datastore = try store.datastore()
        for id in ["a", "b"] {
            let revision = DocumentRevision(docId: id)
            revision.body = ["owner": "ann"]
            try datastore.createDocumentFromRevision(revision)
        }
        try datastore.database.write { db in
            let stored = try Data.fetchOne(db, sql: "SELECT body FROM documents WHERE docId = 'a'")!
            let json = String(decoding: stored.dropFirst(8), as: UTF8.self).replacingOccurrences(of: "ann", with: "bob")
            try db.execute(sql: "UPDATE documents SET body = ? WHERE docId = 'a'", arguments: [stored.prefix(8) + Data(json.utf8)])
        }
        #expect(storeError { _ = try datastore.getDocumentWithId("a") }
                == .corruptDocument(docId: "a", reason: "its stored body fails its checksum"))
        guard case .corruptDocument(docId: "a", _)? = storeError({ _ = try datastore.getAllDocuments() }) else {
            Issue.record("listing every document does not name the damaged one")
            return
        }
        #expect(try datastore.getDocumentWithId("b").body == ["owner": "ann"])
    }

    @Test("a missing or altered attachment blob: reading its bytes names document and attachment; the rest is unaffected")
    func missingBlob() throws {
        let store = try TemporaryStore()
        let datastore = try store.datastore()
        let photo = DocumentRevision(docId: "album")
        photo.body = ["title": "holiday"]
        photo.attachments = [UnsavedDataAttachment(data: Data("photo bytes".utf8), name: "photo.jpg", type: "image/jpeg"),
                             UnsavedDataAttachment(data: Data("note bytes".utf8), name: "note.txt", type: "text/plain")]
        let saved = try datastore.createDocumentFromRevision(photo)
        let digest = try #require(saved.attachments["photo.jpg"] as? SavedAttachment).digest
        let blob = datastore.directory.appendingPathComponent("attachments")
            .appendingPathComponent(String(digest.dropFirst("sha256-".count)))
        try FileManager.default.removeItem(at: blob)

        let read = try datastore.getDocumentWithId("album")
        #expect(read.attachments.names == ["note.txt", "photo.jpg"])
        guard case .attachmentUnreadable(docId: "album", name: "photo.jpg", let reason)? =
            storeError({ _ = try read.attachments["photo.jpg"]!.dataFromAttachmentContent() })
        else {
            Issue.record("a missing blob does not name its document and attachment")
            return
        }
        #expect(reason.contains("missing"), "\(reason)")
        #expect(try read.attachments["note.txt"]!.dataFromAttachmentContent() == Data("note bytes".utf8))
        read.body["title"] = "summer holiday"
        #expect(try datastore.updateDocumentFromRevision(read).attachments.names == ["note.txt", "photo.jpg"],
                "a body-only update keeps the attachment whose blob is lost")

        try Data("other bytes".utf8).write(to: blob)
        guard case .attachmentUnreadable(docId: "album", name: "photo.jpg", _)? =
            storeError({ _ = try datastore.getDocumentWithId("album").attachments["photo.jpg"]!.dataFromAttachmentContent() })
        else {
            Issue.record("a blob whose bytes do not match its digest is read as good")
            return
        }
    }
}

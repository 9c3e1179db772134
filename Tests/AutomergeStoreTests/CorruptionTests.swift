import Foundation
import GRDB
import Testing
@testable import AutomergeStore

/// Damage on disk costs the damaged document only: reading it gives a typed
/// error naming it, and every other document stays readable and writable.
@Suite("Datastore: corruption")
struct CorruptionTests {
    /// A datastore with one large document, `victim`, whose snapshot spans
    /// several database pages, and 20 small ones beside it; the file is
    /// checkpointed and closed, ready to be damaged.
    struct DamagedStore {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("automerge-store-tests-\(getpid())").appendingPathComponent(UUID().uuidString)
        var file: URL { directory.appendingPathComponent("docs/datastore.sqlite") }
        /// Where in the file a run of the victim's snapshot bytes (past its first page) starts.
        private(set) var snapshotOffset = 0
        private(set) var pageSize = 0

        init() throws {
            var random = SplitMix64(seed: 7)
            let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,")
            let text = String((0..<30_000).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            let snapshot = try Self.populate(directory, victimText: text, pageSize: &pageSize)
            let bytes = try Data(contentsOf: file)
            let probe = snapshot[snapshot.startIndex + snapshot.count / 2..<snapshot.startIndex + snapshot.count / 2 + 64]
            snapshotOffset = try #require(bytes.range(of: probe)?.lowerBound, "the victim's snapshot is in the file")
        }

        /// Writes the documents, checkpoints the WAL into the file and closes
        /// the datastore; returns the victim's snapshot.
        private static func populate(_ directory: URL, victimText: String, pageSize: inout Int) throws -> Data {
            let datastore = try DatastoreManager(directory: directory.path).datastoreNamed("docs")
            let victim = DocumentRevision(docId: "victim")
            victim.body = ["text": .string(victimText)]
            try datastore.createDocumentFromRevision(victim)
            for index in 0..<20 {
                let other = DocumentRevision(docId: "other-\(index)")
                other.body = ["index": .int(Int64(index))]
                try datastore.createDocumentFromRevision(other)
            }
            try datastore.database.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            pageSize = try datastore.database.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size")! }
            return try datastore.database.read { db in
                try Data.fetchOne(db, sql: "SELECT snapshot FROM documents WHERE docId = 'victim'")!
            }
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
    }

    @Test("bytes of a snapshot flipped on disk: reading that document names it; the others read and write")
    func damagedSnapshotBytes() throws {
        let store = try DamagedStore()
        try store.overwrite(at: store.snapshotOffset, with: [UInt8](repeating: 0x5A, count: 32))
        let datastore = try DatastoreManager(directory: store.directory.path).datastoreNamed("docs")
        guard case .corruptDocument(docId: "victim", _)? = storeError({ _ = try datastore.getDocumentWithId("victim") }) else {
            Issue.record("the damaged document does not report itself as corrupt")
            return
        }
        guard case .corruptDocument(docId: "victim", _)? = storeError({ _ = try datastore.getAllDocuments() }) else {
            Issue.record("listing every document does not name the damaged one")
            return
        }
        let update = DocumentRevision(docId: "victim")
        update.body = ["text": "replaced"]
        guard case .corruptDocument(docId: "victim", _)? = storeError({ try datastore.updateDocumentFromRevision(update) })
        else {
            Issue.record("an update of the damaged document does not report it as corrupt")
            return
        }
        try store.expectOthersReadableAndWritable(datastore)
        #expect(try datastore.documentCount == 21)
    }

    @Test("a database page broken at the SQLite level: reading that document names it; the others read and write")
    func damagedPage() throws {
        let store = try DamagedStore()
        // The page holding the probe is an overflow page of the victim's
        // row; its first 4 bytes link to the next one. Point them past the
        // end of the file.
        let page = store.snapshotOffset / store.pageSize
        try store.overwrite(at: page * store.pageSize, with: [0x7F, 0xFF, 0xFF, 0xF0])
        let datastore = try DatastoreManager(directory: store.directory.path).datastoreNamed("docs")
        let error = storeError { _ = try datastore.getDocumentWithId("victim") }
        guard case .corruptDocument(docId: "victim", let reason)? = error else {
            Issue.record("expected corruptDocument(victim), got \(String(describing: error))")
            return
        }
        #expect(reason.contains("damaged"), "\(reason)")
        try store.expectOthersReadableAndWritable(datastore)
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

import Foundation
import GRDB
import Testing
@testable import AutomergeStore

/// Damage on disk costs the damaged document only: reading what is damaged
/// gives a typed error naming it, and every other document stays readable
/// and writable. A document is stored twice over: its Automerge bytes
/// (snapshot and chunks) and its current view as JSON, which plain reads use.
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
        /// Where a run of the victim's stored view (its JSON) starts.
        private(set) var viewOffset = 0
        private(set) var pageSize = 0

        init() throws {
            var random = SplitMix64(seed: 7)
            let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,")
            let text = String((0..<30_000).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            let (snapshot, view) = try Self.populate(directory, victimText: text, pageSize: &pageSize)
            let bytes = try Data(contentsOf: file)
            func offset(of stored: Data) throws -> Int {
                let probe = stored[stored.startIndex + stored.count / 2..<stored.startIndex + stored.count / 2 + 64]
                return try #require(bytes.range(of: probe)?.lowerBound, "the victim's bytes are in the file")
            }
            snapshotOffset = try offset(of: snapshot)
            viewOffset = try offset(of: view)
        }

        /// Writes the documents, checkpoints the WAL into the file and closes
        /// the datastore; returns the victim's snapshot and stored view.
        private static func populate(_ directory: URL, victimText: String, pageSize: inout Int) throws -> (Data, Data) {
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
                let row = try Row.fetchOne(db, sql: "SELECT snapshot, body FROM documents WHERE docId = 'victim'")!
                return (row["snapshot"], row["body"])
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

    /// The victim's Automerge document cannot be read or written: both name
    /// it. (Its stored view may still read, or, when the damage lies on the
    /// way to it in the row, name it too.)
    func expectAutomergeBytesReportedCorrupt(_ datastore: Datastore, reasonContains fragment: String) throws {
        let current: DocumentRevision
        do {
            current = try datastore.getDocumentWithId("victim")
        } catch StoreError.corruptDocument(docId: "victim", let reason) {
            #expect(reason.contains(fragment), "\(reason)")
            return
        }
        for (what, call) in [("its Automerge document", { _ = try current.automergeDocument() }),
                             ("an update", { current.body = ["text": "replaced"]; try datastore.updateDocumentFromRevision(current) })]
        {
            let error = storeError(call)
            guard case .corruptDocument(docId: "victim", let reason)? = error else {
                Issue.record("\(what) of the damaged document: expected corruptDocument(victim), got \(String(describing: error))")
                continue
            }
            #expect(reason.contains(fragment), "\(reason)")
        }
    }

    @Test("bytes of a snapshot flipped on disk: its Automerge document and updates name it; its last body and the others read")
    func damagedSnapshotBytes() throws {
        let store = try DamagedStore()
        try store.overwrite(at: store.snapshotOffset, with: [UInt8](repeating: 0x5A, count: 32))
        let datastore = try DatastoreManager(directory: store.directory.path).datastoreNamed("docs")
        #expect(try datastore.getDocumentWithId("victim").body["text"]?.stringValue?.count == 30_000,
                "the stored view still reads")
        try expectAutomergeBytesReportedCorrupt(datastore, reasonContains: "do not load")
        try store.expectOthersReadableAndWritable(datastore)
        #expect(try datastore.documentCount == 21)
    }

    @Test("a database page broken at the SQLite level: reading through it names the document; the others read and write")
    func damagedPage() throws {
        // The page holding the probe is an overflow page of the victim's
        // row; its first 4 bytes link to the next one. Point them past the
        // end of the file.
        for damageView in [false, true] {
            let store = try DamagedStore()
            let page = (damageView ? store.viewOffset : store.snapshotOffset) / store.pageSize
            try store.overwrite(at: page * store.pageSize, with: [0x7F, 0xFF, 0xFF, 0xF0])
            let datastore = try DatastoreManager(directory: store.directory.path).datastoreNamed("docs")
            if damageView {
                let error = storeError { _ = try datastore.getDocumentWithId("victim") }
                guard case .corruptDocument(docId: "victim", let reason)? = error else {
                    Issue.record("expected corruptDocument(victim), got \(String(describing: error))")
                    return
                }
                #expect(reason.contains("damaged"), "\(reason)")
            } else {
                try expectAutomergeBytesReportedCorrupt(datastore, reasonContains: "damaged")
            }
            try store.expectOthersReadableAndWritable(datastore)
        }
    }

    @Test("a stored view that is no longer JSON: reading the document names it; the others read")
    func damagedView() throws {
        let store = try DamagedStore()
        try store.overwrite(at: store.viewOffset, with: [UInt8](repeating: 0x00, count: 16))
        let datastore = try DatastoreManager(directory: store.directory.path).datastoreNamed("docs")
        #expect(storeError { _ = try datastore.getDocumentWithId("victim") }
                == .corruptDocument(docId: "victim", reason: "its stored body is not a JSON map"))
        guard case .corruptDocument(docId: "victim", _)? = storeError({ _ = try datastore.getAllDocuments() }) else {
            Issue.record("listing every document does not name the damaged one")
            return
        }
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

import AutomergeConformance
import Dispatch
import Foundation
import Testing
@_spi(Storage) @testable import Automerge

/// A large document's op set is built on a second core from its rows as
/// they are decoded (``OpRowFeed``): the document must be the same as any
/// other load's, and a decode that fails part-way must fail the load
/// without leaving the build waiting.
@Suite("Loading a large document with its rows fed to the build")
struct FedLoadTests {
    /// A document of more rows than ``StorageFile/feedThreshold`` and so
    /// many feed windows, with what a window must carry over: map keys
    /// interned in every window, objects made in one and written in later
    /// ones, deleted characters (successors), marks and their names.
    static func largeDocument(withCounter: Bool = false) throws -> Document {
        let document = Document()
        document.actor = ActorId(hexString: "f00d01")!
        let text = try document.putObject(obj: .ROOT, key: "text", ty: .Text)
        let settings = try document.putObject(obj: .ROOT, key: "settings", ty: .Map)
        let list = try document.putObject(obj: .ROOT, key: "list", ty: .List)
        if withCounter { try document.put(obj: .ROOT, key: "visits", value: .Counter(0)) }
        for round in 0..<8 {
            try document.spliceText(obj: text, start: UInt64(round * 1_000), delete: 0,
                                    value: String(repeating: "round \(round) 😀 ", count: 2_000))
            try document.spliceText(obj: text, start: UInt64(round * 500), delete: 300, value: "")
            for key in 0..<8_000 {
                try document.put(obj: settings, key: "r\(round)k\(key)", value: .Int(Int64(key)))
            }
            let item = try document.insertObject(obj: list, index: 0, ty: .Map)
            try document.put(obj: item, key: "round", value: .Int(Int64(round)))
            if round > 0 {
                guard case .Object(let earlier, _)? = try document.get(obj: list, index: 1) else {
                    throw AutomergeError.invalidChange("no earlier item")
                }
                try document.put(obj: earlier, key: "next", value: .Int(Int64(round)))
            }
            try document.mark(obj: text, start: UInt64(round * 10), end: UInt64(round * 10 + 5), expand: .both,
                              name: "style\(round % 3)", value: .Boolean(true))
            if withCounter { try document.increment(obj: .ROOT, key: "visits", by: Int64(round)) }
            document.commitReproducibly()
        }
        return document
    }

    /// ``largeDocument(withCounter:)`` saved, made once for the suite.
    static let largeSaved = Result { try largeDocument().save() }

    /// The saved document's leading chunk decoded, feeding a new feed.
    static func decodeFeeding(_ saved: Data) throws -> (feed: OpRowFeed, document: StoredDocument) {
        let sections = try DocumentChunk.sections(of: try #require(try ChunkFraming.split(Array(saved)).first))
        let feed = OpRowFeed()
        return (feed, try DocumentChunk.decode(sections, feed: feed))
    }

    /// The same document with its op set made by replaying its changes.
    static func replayed(_ document: Document) throws -> Document {
        let copy = Document()
        try copy.applyEncodedChanges(encoded: try document.encodeChangesSince(heads: []))
        return copy
    }

    @Test("a large document loads fed as it does replayed from its changes")
    func sameAsReplayed() throws {
        let saved = try Self.largeSaved.get()
        let document = try Self.replayed(try Document(saved))
        let sections = try DocumentChunk.sections(of: try #require(try ChunkFraming.split(Array(saved)).first))
        let rows = try #require(sections.opRowCount)
        try #require(rows >= StorageFile.feedThreshold)

        let loaded = try Document(saved)
        #expect(CanonicalDump.dump(loaded) == CanonicalDump.dump(document))
        #expect(loaded.save() == saved)
        // The loaded op set is live: edits land where they would in the original.
        for doc in [loaded, document] {
            let text = try #require(try doc.get(obj: .ROOT, key: "text").flatMap { value -> ObjId? in
                if case .Object(let id, _) = value { return id } else { return nil }
            })
            try doc.spliceText(obj: text, start: 1_000, delete: 3, value: "edit")
            try doc.put(obj: .ROOT, key: "after", value: .String("load"))
            doc.commitReproducibly()
        }
        #expect(try loaded.text(obj: try Self.textId(of: loaded)) == document.text(obj: try Self.textId(of: document)))
    }

    static func textId(of document: Document) throws -> ObjId {
        try #require(try document.get(obj: .ROOT, key: "text").flatMap { value -> ObjId? in
            if case .Object(let id, _) = value { return id } else { return nil }
        })
    }

    @Test("the decoder hands rows to the feed in windows as it goes")
    func rowsAreFedInWindows() throws {
        let (feed, document) = try Self.decodeFeeding(try Self.largeSaved.get())
        // Not finished: the feed holds what the decoder last published.
        guard case .rows(let window) = feed.next(after: 0) else {
            Issue.record("no rows were fed")
            return
        }
        #expect(window.rows.count % OpRowFeed.publishInterval == 0)
        #expect(window.rows.count > document.ops.count - OpRowFeed.publishInterval)
        #expect(Array(window.rows).map(\.idCounter) == document.ops.rows.prefix(window.rows.count).map(\.idCounter))
        #expect(window.newStrings == Array(document.ops.strings.prefix(window.newStrings.count)))
    }

    @Test("a large document with a counter is not fed, and its increments count")
    func countersAreNotFed() throws {
        let document = try Self.largeDocument(withCounter: true)
        let saved = document.save()
        let (feed, decoded) = try Self.decodeFeeding(saved)
        feed.finish(.success(decoded))
        guard case .finished = feed.next(after: 0) else {
            Issue.record("rows were fed though some are increments")
            return
        }

        let loaded = try Document(saved)
        #expect(try loaded.get(obj: .ROOT, key: "visits") == .Scalar(.Counter(Int64((0..<8).reduce(0, +)))))
        #expect(CanonicalDump.dump(loaded) == CanonicalDump.dump(try Self.replayed(document)))
    }

    /// The large document's chunk, uncompressed, with one op row rewritten.
    static func documentWithRow(_ row: Int, rewrittenBy rewrite: (inout StoredOp) -> Void) throws -> [UInt8] {
        let saved = try Self.largeSaved.get()
        var stored = try DocumentChunk.decode(try #require(try ChunkFraming.split(Array(saved)).first))
        var op = stored.ops[row]
        rewrite(&op)
        stored.ops[row] = op
        return DocumentChunk.encode(stored, compress: false)
    }

    @Test("a decode that fails after rows were fed fails the load with the decode's error")
    func decodeFailsPartWay() throws {
        let row = 2 * OpRowFeed.publishInterval + 5
        let bytes = try Self.documentWithRow(row) { $0.object = StoredOpId(counter: 1, actor: 7) }
        let unfed: LoadError
        do {
            _ = try StorageFile.decode(bytes)
            Issue.record("an actor index out of range decoded")
            return
        } catch {
            unfed = error
        }
        #expect(throws: AutomergeError.load(unfed)) { try Document(Data(bytes)) }
    }

    @Test("an op in an object no row made fails the load part-way")
    func buildFailsPartWay() throws {
        let row = 2 * OpRowFeed.publishInterval + 5
        // An op in an object no row made: the decode and the rebuild of
        // the changes take it, the op set cannot.
        let bytes = try Self.documentWithRow(row) { $0.object = StoredOpId(counter: 999_999, actor: 0) }
        #expect(throws: AutomergeError.self) { try Document(Data(bytes)) }
    }

    @Test("a build that starts after the decode ended reads every row from the document")
    func lateBuild() throws {
        let (feed, decoded) = try Self.decodeFeeding(try Self.largeSaved.get())
        feed.finish(.success(decoded))
        let late = try OpSet.load(feed, encoding: .unicodeScalar)
        let direct = try OpSet.load(.finished(decoded), encoding: .unicodeScalar)
        #expect(late.maxOp == direct.maxOp)
        #expect(late.objects.count == direct.objects.count)
    }

    /// A long history's change rows decode after its op rows: the op set
    /// is built from the op rows meanwhile, and takes its max op from the
    /// changes once they are decoded.
    @Test("a build given every op row waits for the change rows, and fails if they do", arguments: [true, false])
    func buildBeforeChangeRows(changesDecode: Bool) throws {
        let (feed, decoded) = try Self.decodeFeeding(try Self.largeSaved.get())
        let direct = try OpSet.load(.finished(decoded), encoding: .unicodeScalar)
        let built = Built()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            built.result = Result { () throws(LoadError) in try OpSet.load(feed, encoding: .unicodeScalar) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 0.2) == .timedOut, "the build waits for the change rows")
        feed.finish(changesDecode ? .success(decoded) : .failure(.truncated(what: "change rows")))
        #expect(done.wait(timeout: .now() + 30) == .success)
        switch try #require(built.result) {
        case .success(let opSet):
            #expect(changesDecode)
            #expect(opSet.maxOp == direct.maxOp && opSet.objects.count == direct.objects.count)
        case .failure(let error):
            #expect(!changesDecode && error == .truncated(what: "change rows"))
        }
    }

    final class Built: @unchecked Sendable {
        var result: Result<OpSet, LoadError>?
    }

    @Test("a builder waiting for rows wakes for each publication and for the end")
    func builderWakes() throws {
        var rows = FollowableBuffer<StoredOpRows.Row>()
        var groupIds = FollowableBuffer<StoredOpId>()
        rows.reserveCapacity(3)
        let feed = OpRowFeed()
        feed.begin(actors: [], rows: rows.beginFollowing(), groupIds: groupIds.beginFollowing(), valueBytes: [])
        let seen = Seen()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var consumed = 0
            loop: while true {
                switch feed.next(after: consumed) {
                case .rows(let window):
                    consumed = window.rows.count
                    seen.append(consumed)
                case .finished, .failed, .opsDecoded:
                    break loop
                }
            }
            done.signal()
        }
        let row = StoredOpRows.Row(
            objectCounter: 0, keyCounter: 0, idCounter: 1, valueStart: 0, objectActor: StoredOpRows.Row.none,
            keyActor: StoredOpRows.Row.none, idActor: 0, valueLength: 0, groupStart: 0, groupCount: 0, markName: 0,
            action: 0, valueType: 0, insert: true, expand: false)
        for count in 1...3 {
            rows.append(row)
            feed.publish(rowCount: count, groupCount: 0, newStrings: [])
            while seen.counts.last != count { usleep(100) }
        }
        feed.finish(.failure(.truncated(what: "test")))
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(seen.counts == [1, 2, 3])
    }

    /// Row counts a builder saw, from another thread.
    final class Seen: @unchecked Sendable {
        private let lock = Lock()
        private var seen: [Int] = []
        func append(_ count: Int) { lock.withLock { seen.append(count) } }
        var counts: [Int] { lock.withLock { seen } }
    }
}

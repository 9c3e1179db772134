import Automerge
import AutomergeUtilities
import Foundation
import Testing

// A small notes app written against automerge-swift 0.6.1's documented API
// (its docs in ../shared/seeds and its public declarations), as a client
// would write it: nothing here knows it runs on another implementation.

/// The app's model, stored with the Codable layer.
struct NoteBook: Codable {
    var owner: String
    var created: Date
    var notes: [Note]
    var tags: [String: Int]
    var views: Counter
}

struct Note: Codable {
    var title: String
    var body: AutomergeText
    var pinned: Bool
    var rating: Double?
}

/// The app's document wrapper: model in, model out, and the core API for hot paths.
final class NoteBookStore {
    let doc: Document
    private let encoder: AutomergeEncoder
    private let decoder: AutomergeDecoder
    private(set) var model: NoteBook

    init(owner: String) throws {
        doc = Document(textEncoding: .unicodeScalar, logLevel: .errorOnly)
        encoder = AutomergeEncoder(doc: doc, strategy: .createWhenNeeded, cautiousWrite: false, reportingLoglevel: .errorOnly)
        decoder = AutomergeDecoder(doc: doc)
        model = NoteBook(owner: owner, created: Date(timeIntervalSince1970: 1_700_000_000), notes: [], tags: [:], views: Counter(0))
        try encoder.encode(model)
        doc.commitWith(message: "create notebook")
    }

    init(data: Data) throws {
        doc = try Document(data, logLevel: .errorOnly)
        encoder = AutomergeEncoder(doc: doc)
        decoder = AutomergeDecoder(doc: doc)
        model = try decoder.decode(NoteBook.self)
    }

    func add(_ title: String, body: String) throws {
        model.notes.append(Note(title: title, body: AutomergeText(body), pinned: false, rating: nil))
        try storeModelUpdates()
    }

    func storeModelUpdates() throws {
        try encoder.encode(model)
    }

    func getModelUpdates() throws {
        model = try decoder.decode(NoteBook.self)
    }

    /// The hot path: retitle a note through the core API.
    func retitle(_ index: Int, to title: String) throws {
        guard let noteId = try doc.lookupPath(path: ".notes.[\(index)]") else { throw BindingError.InvalidPath(".notes.[\(index)]") }
        try doc.put(obj: noteId, key: "title", value: .String(title))
    }

    func bodyId(_ index: Int) throws -> ObjId {
        guard let id = try doc.lookupPath(path: ".notes.[\(index)].body") else { throw BindingError.NotText }
        return id
    }
}

@Suite("A notes app written for automerge-swift 0.6.1")
struct NotesAppClientTests {
    @Test func modelRoundTripsThroughSaveAndLoad() throws {
        let store = try NoteBookStore(owner: "ana")
        try store.add("Groceries", body: "milk, eggs")
        try store.add("Ideas", body: "a CRDT notes app")
        try store.getModelUpdates()
        store.model.views.increment(by: 3)
        store.doc.commitWith(message: "two notes")

        let reopened = try NoteBookStore(data: store.doc.save())
        #expect(reopened.model.owner == "ana")
        #expect(reopened.model.notes.map(\.title) == ["Groceries", "Ideas"])
        #expect(reopened.model.notes[1].body.value == "a CRDT notes app")
        #expect(reopened.model.views.value == 3)
        #expect(reopened.model.created == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(reopened.doc.equivalentContents(store.doc))
        #expect(try !reopened.doc.isEmpty())
    }

    @Test func boundTextEditsGoStraightIntoTheDocument() throws {
        let store = try NoteBookStore(owner: "ana")
        try store.add("Draft", body: "hello")
        try store.getModelUpdates()
        let body = store.model.notes[0].body
        #expect(body.isBound)
        body.value = "hello, world"
        #expect(try store.doc.text(obj: store.bodyId(0)) == "hello, world")

        // The core API sees the same object and can splice it.
        let id = try store.bodyId(0)
        try store.doc.spliceText(obj: id, start: 0, delete: 5, value: "Hi")
        #expect(body.value == "Hi, world")
        #expect(store.doc.objectType(obj: id) == .Text)
        #expect(store.doc.length(obj: id) == 9)
    }

    @Test func concurrentEditorsMergeAndReportPatches() throws {
        let ana = try NoteBookStore(owner: "ana")
        try ana.add("Plan", body: "one two")
        ana.doc.commitWith(message: "plan")
        let ben = try NoteBookStore(data: ana.doc.save())
        ben.doc.actor = ActorId()

        try ana.retitle(0, to: "Plan A")
        let anaBody = try ana.bodyId(0)
        try ana.doc.spliceText(obj: anaBody, start: 7, delete: 0, value: " three")
        let benBody = try ben.bodyId(0)
        try ben.doc.spliceText(obj: benBody, start: 0, delete: 0, value: "zero ")
        ben.doc.commitWith(message: "ben edits", timestamp: Date(timeIntervalSince1970: 1_700_000_100))

        let before = ana.doc.heads()
        let patches = try ana.doc.mergeWithPatches(other: ben.doc)
        #expect(try ana.doc.text(obj: anaBody) == "zero one two three")
        #expect(patches.contains { patch in
            if case .SpliceText(obj: anaBody, index: 0, value: "zero ", marks: _) = patch.action { return true }
            return false
        })
        #expect(patches.allSatisfy { $0.path.stringPath().hasPrefix(".notes") })
        #expect(ana.doc.difference(since: before) == ana.doc.difference(from: before, to: ana.doc.heads()))

        try ana.getModelUpdates()
        #expect(ana.model.notes[0].title == "Plan A")
        #expect(ana.model.notes[0].body.value == "zero one two three")
    }

    @Test func historyTimeTravelAndForks() throws {
        let store = try NoteBookStore(owner: "ana")
        try store.add("v1", body: "first")
        store.doc.commitWith(message: "v1")
        let v1 = store.doc.heads()
        try store.retitle(0, to: "v2")
        store.doc.commitWith(message: "v2")

        let notes = try #require(try store.doc.lookupPath(path: ".notes"))
        let noteAtV1 = try #require(try store.doc.getAt(obj: notes, index: 0, heads: v1))
        guard case .Object(let noteId, .Map) = noteAtV1 else {
            Issue.record("the note is a map")
            return
        }
        #expect(try store.doc.getAt(obj: noteId, key: "title", heads: v1) == .Scalar(.String("v1")))
        #expect(try store.doc.get(obj: noteId, key: "title") == .Scalar(.String("v2")))

        let history = store.doc.getHistory()
        let messages = history.compactMap { store.doc.change(hash: $0)?.message }
        #expect(messages == ["create notebook", "v1", "v2"])
        let last = try #require(store.doc.change(hash: history[history.count - 1]))
        #expect(last.deps == [history[history.count - 2]])
        #expect(abs(last.timestamp.timeIntervalSinceNow) < 600)  // commitWith stamps the change with the current time

        let old = try store.doc.forkAt(heads: v1)
        #expect(try old.get(obj: noteId, key: "title") == .Scalar(.String("v1")))
        let undo = store.doc.difference(to: v1)
        #expect(undo == [Patch(action: .Put(noteId, .Key("title"), .Scalar(.String("v1"))), path: try store.doc.path(obj: noteId))])

        // Heads kept as bytes between launches.
        let saved = v1.raw()
        #expect(saved.heads() == v1)
        #expect(Data([1, 2, 3]).heads() == nil)
    }

    @Test func cursorsFollowEditsAndHistory() throws {
        let store = try NoteBookStore(owner: "ana")
        try store.add("Cursor", body: "hello world")
        let body = try store.bodyId(0)
        let cursor = try store.doc.cursor(obj: body, position: 6)
        let then = store.doc.heads()
        try store.doc.spliceText(obj: body, start: 0, delete: 0, value: ">> ")
        #expect(try store.doc.position(obj: body, cursor: cursor) == 9)
        #expect(try store.doc.position(obj: body, cursor: cursor, heads: then) == 6)
        let historical = try store.doc.cursor(obj: body, position: 0, heads: then)
        #expect(try store.doc.position(obj: body, cursor: historical) == 3)
        #expect(!cursor.description.isEmpty)
    }

    @Test func marksOnNoteBodies() throws {
        let store = try NoteBookStore(owner: "ana")
        try store.add("Marks", body: "make this bold")
        let body = try store.bodyId(0)
        try store.doc.mark(obj: body, start: 10, end: 14, expand: .both, name: "bold", value: .Boolean(true))
        #expect(try store.doc.marks(obj: body) == [Mark(start: 10, end: 14, name: "bold", value: .Boolean(true))])
        #expect(try store.doc.marksAt(obj: body, position: .index(11)).map(\.name) == ["bold"])
        let before = store.doc.heads()
        try store.doc.spliceText(obj: body, start: 14, delete: 0, value: "!")
        let patches = store.doc.difference(since: before)
        #expect(patches.contains { patch in
            if case .SpliceText(obj: body, index: 14, value: "!", marks: let marks) = patch.action {
                return marks == ["bold": .Scalar(.Boolean(true))]
            }
            return false
        })
        #expect(try store.doc.marksAt(obj: body, position: .index(14), heads: store.doc.heads()).map(\.name) == ["bold"])
    }

    @Test func lowLevelListsAndCounters() throws {
        let doc = Document()
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.insert(obj: list, index: 0, value: .Int(1))
        try doc.splice(obj: list, start: 1, delete: 0, values: [.String("two"), .F64(3)])
        _ = try doc.insertObject(obj: list, index: 3, ty: .Map)
        #expect(doc.length(obj: list) == 4)
        #expect(try doc.values(obj: list).prefix(3) == [.Scalar(.Int(1)), .Scalar(.String("two")), .Scalar(.F64(3))])
        try doc.put(obj: .ROOT, key: "count", value: .Counter(10))
        try doc.increment(obj: .ROOT, key: "count", by: -3)
        #expect(try doc.get(obj: .ROOT, key: "count") == .Scalar(.Counter(7)))
        #expect(doc.keys(obj: .ROOT) == ["count", "list"])
        #expect(try doc.mapEntries(obj: .ROOT).map(\.0) == ["count", "list"])
        #expect(try doc.path(obj: list).stringPath() == ".list")
        let schema = try doc.schema()
        guard case .dict(let entries) = schema, case .array(let items)? = entries["list"] else {
            Issue.record("schema is a dict with a list")
            return
        }
        #expect(items.count == 4 && items[3] == .dict([:]))
        #expect(entries["count"] == .scalar(.Counter(7)))
    }

    @Test func syncingChangesAsBytes() throws {
        let ana = try NoteBookStore(owner: "ana")
        let ben = try NoteBookStore(data: ana.doc.save())
        ben.doc.actor = ActorId()
        _ = ana.doc.encodeNewChanges()
        try ana.add("Shared", body: "sent as changes")
        let changes = ana.doc.encodeNewChanges()
        let patches = try ben.doc.applyEncodedChangesWithPatches(encoded: changes)
        #expect(!patches.isEmpty)
        try ben.getModelUpdates()
        #expect(ben.model.notes.map(\.title) == ["Shared"])
        let since = try ana.doc.encodeChangesSince(heads: ben.doc.heads())
        #expect(since.isEmpty)
        try ben.doc.applyEncodedChanges(encoded: since)
        #expect(ben.doc.equivalentContents(ana.doc))
    }

    @Test func errorsAClientCatches() throws {
        let store = try NoteBookStore(owner: "ana")
        do {
            _ = try store.doc.get(obj: .ROOT, index: 0)
            Issue.record("an index on the root map throws")
        } catch let error as DocError {
            #expect(error.errorDescription?.isEmpty == false)
        }
        #expect(throws: PathParseError.self) { try store.doc.lookupPath(path: "/notes/0") }
        #expect(throws: CodingKeyLookupError.self) { try store.doc.lookupPath(path: ".owner.first") }
        #expect(throws: (any Error).self) { try Document(Data([0x85, 0x6f, 0x4a, 0x83])) }
        let tags = try #require(try store.doc.lookupPath(path: ".tags"))
        #expect(throws: CodingKeyLookupError.self) { try store.doc.lookupPath(path: ".notes.[3]") }
        #expect(try store.doc.lookupPath(path: ".notes.[0]") == nil)
        #expect(store.doc.objectType(obj: tags) == .Map)
    }
}

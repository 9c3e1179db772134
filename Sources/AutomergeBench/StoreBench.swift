import ArgumentParser
import AutomergeStore
import Foundation
import GRDB

/// `automerge-bench store`: the datastore's creates, gets, updates and
/// paging of small documents, each beside the same work on plain GRDB rows
/// of JSON text (the floor), and the disk bytes each document takes.
struct StoreBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Datastore: create, get, update and page small documents, beside plain GRDB rows of JSON text.",
        discussion: """
            The floor is a GRDB DatabasePool in WAL mode, configured as the datastore's, with a table \
            docs(id TEXT PRIMARY KEY, rev TEXT, body TEXT) holding each document as JSON (Codable), statements \
            compiled once. \
            Budget: at most 3x the floor for create, get and update.
            """)

    @Option(help: "Documents.") var count = 10_000
    @Option(help: "Runs per work item (the median is reported).") var runs = 3
    @Option(help: "An empty or missing folder to work in, kept afterwards (default: a fresh temporary folder, removed at the end).")
    var directory: String?
    @Option(help: "Run only this work item (create-one, create-batch, get, update, page), for a profiler.") var only: Work?

    /// The work items, for `--only`.
    enum Work: String, ExpressibleByArgument {
        case createOne = "create-one", createBatch = "create-batch", get, update, page
    }

    /// The budget: our time at most this many times the floor's.
    static let budget = 3.0

    func run() throws {
        let root = try workingFolder()
        defer { if directory == nil { try? FileManager.default.removeItem(at: root) } }
        print("store benchmarks: \(count) small documents, median of \(runs) runs, the two sides taking turns;")
        print("ratio: the median of the runs' ratios (release build expected)")
        print("working in \(root.path)\(directory == nil ? " (removed at the end)" : "")\n")
        print(padded("work", 34) + padded("ours", 27) + padded("GRDB JSON rows (floor)", 27) + padded("ratio", 9) + "budget")
        let wanted = { (work: Work) in only == nil || only == work }
        if wanted(.createOne) {
            report("create, one per call", budget: true, try paired { run, side in
                side == .ours ? try createOnePerCall(Ours.self, root, run) : try createOnePerCall(Floor.self, root, run)
            })
        }
        if wanted(.createBatch) {
            report("create, one batch", budget: true, try paired { run, side in
                side == .ours ? try createBatch(Ours.self, root, run) : try createBatch(Floor.self, root, run)
            })
        }
        guard only != .createOne, only != .createBatch else { return }
        let ours = try Prepared<Ours>(folder: root.appendingPathComponent("ours"), count: count)
        let floor = try Prepared<Floor>(folder: root.appendingPathComponent("floor"), count: count)
        let stores = { (body: (Ours, Floor) throws -> Pair) in try ours.withStore { o in try floor.withStore { f in try body(o, f) } } }
        if wanted(.get) {
            report("get by id", budget: true, try stores { o, f in try paired { $1 == .ours ? try get(o) : try get(f) } })
        }
        if wanted(.update) {
            report("update one field (given revision)", budget: true,
                   try stores { o, f in try paired { run, side in side == .ours ? try update(o, run: run) : try update(f, run: run) } })
            ours.bytesAfterUpdates = Prepared<Ours>.bytes(in: ours.folder)
            floor.bytesAfterUpdates = Prepared<Floor>.bytes(in: floor.folder)
        }
        if wanted(.page) {
            report("page through all, 100 a page", budget: false,
                   try stores { o, f in try paired { $1 == .ours ? try page(o) : try page(f) } })
        }
        guard only == nil else { return }
        print("""

            update: the revision (getDocumentWithId / the row's rev and body) is read before the clock starts; \
            the update calls alone are timed, each run flipping `completed` so every run writes.
            get, update and page run on one prepared set (one batch create); paging comes after \(runs) updates \
            of every document.
            """)
        reportDisk(ours, floor)
    }

    /// Prints one work item: medians in ms, µs per document, the ratio and, for budgeted work, the verdict.
    func report(_ work: String, budget: Bool, _ pair: Pair) {
        let perDocument = { (ms: Double) in String(format: "%.1f ms, %.1f µs/doc", ms, ms * 1000 / Double(count)) }
        var line = padded(work, 34) + padded(perDocument(pair.ours), 27) + padded(perDocument(pair.floor), 27)
            + padded(String(format: "%.2fx", pair.ratio), 9)
        if budget { line += String(format: "ratio <= %.0fx: ", Self.budget) + verdict(pair.ratio, budget: Self.budget) }
        print(line)
    }

    /// Which side a paired run times.
    enum Side { case ours, floor }

    /// The medians of both sides' times and of their per-run ratios.
    struct Pair {
        var ours: Double
        var floor: Double
        var ratio: Double
    }

    /// Runs the work `runs` times on each side, the two sides taking turns
    /// (ours first in even runs, the floor first in odd ones), so that a
    /// machine whose speed drifts during the benchmark slows both alike;
    /// the ratio is the median of the runs' ratios.
    func paired(_ run: (Int, Side) throws -> Double) throws -> Pair {
        var ours = [Double](), floor = [Double]()
        for index in 0..<max(1, runs) {
            for side in index % 2 == 0 ? [Side.ours, .floor] : [.floor, .ours] {
                let time = try run(index, side)
                if side == .ours { ours.append(time) } else { floor.append(time) }
            }
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        return Pair(ours: median(ours), floor: median(floor), ratio: median(zip(ours, floor).map { $0 / $1 }))
    }

    /// Disk bytes per document after the prepared sets' batch create and after their updates.
    func reportDisk(_ ours: Prepared<Ours>, _ floor: Prepared<Floor>) {
        print("\ndisk bytes per document (every file of the folder, measured with the database closed, which")
        print("checkpoints the WAL into the database file and removes it; the datastore's empty attachments folder counts 0)")
        for (label, ourBytes, floorBytes) in [("after creating them", ours.bytesAfterCreate, floor.bytesAfterCreate),
                                              ("after \(runs) updates of each", ours.bytesAfterUpdates, floor.bytesAfterUpdates)]
        {
            print("  " + padded(label, 28) + String(format: "ours %7.0f B   floor %7.0f B   %5.2fx",
                                                  Double(ourBytes) / Double(count), Double(floorBytes) / Double(count),
                                                  Double(ourBytes) / Double(floorBytes)))
        }
    }

    /// `--directory`, checked empty, or a fresh temporary folder.
    func workingFolder() throws -> URL {
        guard let directory else {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("automerge-store-bench-\(getpid())")
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return folder
        }
        let folder = URL(fileURLWithPath: directory, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard (try FileManager.default.contentsOfDirectory(atPath: folder.path)).isEmpty else {
            throw ValidationError("--directory \(directory) is not empty")
        }
        return folder
    }

    // MARK: Work items

    /// Creates `count` documents one call (one transaction) each, on a fresh store.
    func createOnePerCall<Side: StoreBenchSide>(_ side: Side.Type, _ root: URL, _ run: Int) throws -> Double {
        let store = try Side(folder: root.appendingPathComponent("\(Side.name)_one_\(run)"))
        let documents = (0..<count).map(Side.newDocument)
        return try milliseconds { for document in documents { try store.create(document) } }
    }

    /// Creates `count` documents in one call (one transaction), on a fresh store.
    func createBatch<Side: StoreBenchSide>(_ side: Side.Type, _ root: URL, _ run: Int) throws -> Double {
        let store = try Side(folder: root.appendingPathComponent("\(Side.name)_batch_\(run)"))
        let documents = (0..<count).map(Side.newDocument)
        return try milliseconds { try store.create(batch: documents) }
    }

    /// Gets every document by id, its body decoded; checks what was read.
    func get<Side: StoreBenchSide>(_ store: Side) throws -> Double {
        var prioritySum = 0
        let time = try milliseconds {
            for index in 0..<count { prioritySum += try store.priority(of: try store.get(documentId(index))) }
        }
        guard prioritySum == (0..<count).reduce(0, { $0 + $1 % 5 }) else {
            throw ValidationError("\(Side.name): get read other bodies than were created")
        }
        return time
    }

    /// Sets `completed` of every document from the revision read before the
    /// clock starts; run `k` sets it to whether `k` is even, so that every run writes.
    func update<Side: StoreBenchSide>(_ store: Side, run: Int) throws -> Double {
        let revisions = try (0..<count).map { try store.get(documentId($0)) }
        return try milliseconds { for revision in revisions { try store.update(revision, completed: run % 2 == 0) } }
    }

    /// Reads every document, in pages of 100 by id (LIMIT and OFFSET), bodies decoded.
    func page<Side: StoreBenchSide>(_ store: Side) throws -> Double {
        var read = 0
        let time = try milliseconds {
            var page = 0
            repeat {
                page = try store.page(offset: read, limit: 100)
                read += page
            } while page > 0
        }
        guard read == count else { throw ValidationError("\(Side.name): paging read \(read) documents of \(count)") }
        return time
    }
}

/// `text` padded with spaces to `width` characters (`%-20@` does not pad on Linux).
func padded(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}

/// The id of the `index`th document: ids sort in creation order.
func documentId(_ index: Int) -> String { String(format: "doc-%06d", index) }

/// A set of `count` documents made by one batch create, shared by the get,
/// update and page work items: opened for each, closed between them, its
/// disk bytes taken while closed.
final class Prepared<Side: StoreBenchSide> {
    let folder: URL
    var bytesAfterCreate = 0
    var bytesAfterUpdates = 0

    init(folder: URL, count: Int) throws {
        self.folder = folder
        try Side(folder: folder).create(batch: (0..<count).map(Side.newDocument))
        bytesAfterCreate = Self.bytes(in: folder)
    }

    /// Runs `body` with the set opened; it is closed when `body` returns
    /// (the last reference to a store gone, its database closes).
    func withStore<T>(_ body: (Side) throws -> T) throws -> T { try body(try Side(folder: folder)) }

    /// The sizes of every file under `folder`, summed.
    static func bytes(in folder: URL) -> Int {
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
        var total = 0
        while let file = files?.nextObject() as? URL {
            let values = try? file.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            if values?.isRegularFile == true { total += values?.fileSize ?? 0 }
        }
        return total
    }
}

/// One side of the comparison: a store of small documents, opened on a
/// folder (created if missing) and closed when the last reference goes.
protocol StoreBenchSide: AnyObject {
    /// What a create takes, made before the clock starts.
    associatedtype NewDocument
    /// What a get returns: the document's revision and decoded body.
    associatedtype Revision
    static var name: String { get }
    init(folder: URL) throws
    static func newDocument(_ index: Int) -> NewDocument
    func create(_ document: NewDocument) throws
    func create(batch: [NewDocument]) throws
    func get(_ id: String) throws -> Revision
    func priority(of revision: Revision) throws -> Int
    /// Writes the document with `completed` changed, if `revision` is still its current one.
    func update(_ revision: Revision, completed: Bool) throws
    /// Reads a page of documents by id and returns how many it held.
    func page(offset: Int, limit: Int) throws -> Int
}

/// The datastore.
final class Ours: StoreBenchSide {
    static let name = "ours"
    let datastore: Datastore

    init(folder: URL) throws {
        datastore = try DatastoreManager(directory: folder.path).datastoreNamed("bench")
    }

    static func newDocument(_ index: Int) -> DocumentRevision {
        let revision = DocumentRevision(docId: documentId(index))
        revision.body = ["title": .string("Task \(index)"), "completed": false, "priority": .int(Int64(index % 5)),
                         "tags": ["home", "work"]]
        return revision
    }

    func create(_ document: DocumentRevision) throws { try datastore.createDocumentFromRevision(document) }
    func create(batch: [DocumentRevision]) throws { try datastore.createDocumentsFromRevisions(batch) }
    func get(_ id: String) throws -> DocumentRevision { try datastore.getDocumentWithId(id) }
    func priority(of revision: DocumentRevision) throws -> Int { Int(revision.body["priority"]?.intValue ?? -1) }

    func update(_ revision: DocumentRevision, completed: Bool) throws {
        revision.body["completed"] = .bool(completed)
        try datastore.updateDocumentFromRevision(revision)
    }

    func page(offset: Int, limit: Int) throws -> Int {
        try datastore.getAllDocuments(offset: offset, limit: limit, descending: false).count
    }
}

/// The floor: what a plain app would do with GRDB, each document a row of
/// JSON text (Codable) with a revision string for optimistic concurrency,
/// in a DatabasePool configured as the datastore's (WAL, foreign keys, busy
/// timeout). Its statements are compiled once (`cachedStatement`), as GRDB's record
/// writes do: compiling one costs more than running it (10–25 µs here),
/// and a floor is the least the work can cost.
final class Floor: StoreBenchSide {
    /// The small document's model.
    struct Item: Codable {
        var title: String
        var completed: Bool
        var priority: Int
        var tags: [String]
    }

    /// A document as read: id, revision and decoded body.
    struct Revision {
        var id: String
        var rev: String
        var item: Item
    }

    /// A write given a revision that is no longer the document's.
    struct Conflict: Error {}

    static let name = "floor"
    static let selectById = "SELECT rev, body FROM docs WHERE id = ?"
    let pool: DatabasePool
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()

    init(folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(30)
        pool = try DatabasePool(path: folder.appendingPathComponent("floor.sqlite").path, configuration: configuration)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS docs (id TEXT PRIMARY KEY NOT NULL, rev TEXT NOT NULL, body TEXT NOT NULL)")
        }
    }

    static func newDocument(_ index: Int) -> Revision {
        Revision(id: documentId(index), rev: "", item: Item(title: "Task \(index)", completed: false, priority: index % 5,
                                                            tags: ["home", "work"]))
    }

    /// A new revision string: the generation, then 32 random hex digits.
    static func nextRev(after rev: String) -> String {
        "\((Int(rev.prefix { $0 != "-" }) ?? 0) + 1)-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    func insert(_ document: Revision, _ db: GRDB.Database) throws {
        try db.cachedStatement(sql: "INSERT INTO docs (id, rev, body) VALUES (?, ?, ?)").execute(arguments: [
            document.id, Self.nextRev(after: ""), String(decoding: try encoder.encode(document.item), as: UTF8.self),
        ])
    }

    func create(_ document: Revision) throws { try pool.write { db in try insert(document, db) } }
    func create(batch: [Revision]) throws { try pool.write { db in for document in batch { try insert(document, db) } } }

    func get(_ id: String) throws -> Revision {
        let row = try pool.read { db in try Row.fetchOne(try db.cachedStatement(sql: Self.selectById), arguments: [id]) }
        guard let row else { throw ValidationError("floor: no document \(id)") }
        return Revision(id: id, rev: row["rev"], item: try decoder.decode(Item.self, from: Data((row["body"] as String).utf8)))
    }

    func priority(of revision: Revision) throws -> Int { revision.item.priority }

    /// Reads the row, checks its revision, decodes, changes the field, encodes and writes it back, in one transaction.
    func update(_ revision: Revision, completed: Bool) throws {
        try pool.write { db in
            guard let row = try Row.fetchOne(try db.cachedStatement(sql: Self.selectById), arguments: [revision.id]),
                row["rev"] as String == revision.rev
            else { throw Conflict() }
            var item = try decoder.decode(Item.self, from: Data((row["body"] as String).utf8))
            item.completed = completed
            try db.cachedStatement(sql: "UPDATE docs SET rev = ?, body = ? WHERE id = ?").execute(arguments: [
                Self.nextRev(after: revision.rev), String(decoding: try encoder.encode(item), as: UTF8.self), revision.id,
            ])
        }
    }

    func page(offset: Int, limit: Int) throws -> Int {
        let rows = try pool.read { db in
            try Row.fetchAll(try db.cachedStatement(sql: "SELECT id, rev, body FROM docs ORDER BY id LIMIT ? OFFSET ?"),
                             arguments: [limit, offset])
        }
        return try rows.map { row in
            Revision(id: row["id"], rev: row["rev"], item: try decoder.decode(Item.self, from: Data((row["body"] as String).utf8)))
        }.count
    }
}

import Automerge
import Foundation
import GRDB

/// A named set of documents, keyed by id, each an Automerge document whose
/// root map is its body. Get one from ``DatastoreManager/datastoreNamed(_:)``.
///
/// Every call is one SQLite transaction (WAL mode): it happens entirely or
/// not at all, and once it returns the write survives a crash. Calls are
/// safe from any thread; writes are serialized, reads run beside them.
public final class Datastore: Sendable {
    /// The datastore's name.
    public let name: String
    /// The folder holding its database and attachment blobs.
    public let directory: URL
    let database: DatabasePool
    /// Checkpoints the database's log after writes, outside the write lock.
    let checkpointer: WALCheckpointer
    let blobs: BlobStore
    /// The actor this datastore writes its changes as.
    let actor: ActorId
    let cache = DocumentCache()
    let events = ChangeEventHub()
    /// Where the write-ahead log's checkpoints run. Unless set, the thread
    /// whose write made one due runs it as its write returns, so that
    /// write's caller waits for it (tens of milliseconds, about once every
    /// thousand pages written). A host with a thread for background work
    /// (a server's low-priority pool) sets a function that runs the
    /// checkpoint it is given there, soon; it must run each one it is
    /// given, once (no other checkpoint runs until it has).
    public var checkpointRunner: (@Sendable (_ checkpoint: @escaping @Sendable () -> Void) -> Void)? {
        get { checkpointer.checkpointRunner }
        set { checkpointer.checkpointRunner = newValue }
    }

    init(name: String, directory: URL) throws {
        self.name = name
        self.directory = directory
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.foreignKeysEnabled = true
            configuration.busyMode = .timeout(30)
            let path = directory.appendingPathComponent("datastore.sqlite").path
            let checkpointer = WALCheckpointer(path: path)
            configuration.prepareDatabase { db in checkpointer.install(on: db) }
            self.checkpointer = checkpointer
            database = try DatabasePool(path: path, configuration: configuration)
            try StoreSchema.migrator.migrate(database)
            actor = try database.write { db in try Self.actor(in: db) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.storage("cannot open datastore '\(name)': \(error)")
        }
        blobs = try BlobStore(directory: directory.appendingPathComponent("attachments"))
    }

    /// The actor id kept in `meta`, made on first open.
    private static func actor(in db: GRDB.Database) throws -> ActorId {
        if let bytes = try Data.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'actor'"),
            let actor = ActorId(data: bytes)
        {
            return actor
        }
        let actor = ActorId()
        try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('actor', ?)", arguments: [actor.data])
        return actor
    }

    /// The most memory, in bytes as estimated, the Automerge documents this
    /// datastore keeps loaded between writes may take (256 MiB unless set):
    /// a document written again while cached is not loaded again. The least
    /// recently used go first; a sync server with many live documents sets it
    /// to hold them.
    public var documentCacheByteLimit: Int {
        get { cache.byteLimit }
        set { cache.byteLimit = newValue }
    }

    /// Runs `body` in one write transaction, turning database failures into ``StoreError``.
    func write<T>(_ body: (GRDB.Database) throws -> T) throws -> T {
        defer { checkpointer.checkpointIfDue() }
        return try translatingErrors { try database.write(body) }
    }

    /// Runs `body` in one read transaction, turning database failures into ``StoreError``.
    func read<T>(_ body: (GRDB.Database) throws -> T) throws -> T {
        try translatingErrors { try database.read(body) }
    }

    /// Lets the store's own errors (and a peer's protocol violations) through and reports any other as ``StoreError/storage(_:)``.
    private func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch let error as QueryError {
            throw error
        } catch let error as ReplicationError {
            throw error  // a peer's bad message, found inside a transaction: the caller tells it from storage failures
        } catch {
            throw StoreError.storage("\(error)")
        }
    }
}

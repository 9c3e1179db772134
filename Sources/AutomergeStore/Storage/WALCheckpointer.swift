import Foundation
import GRDB
import GRDBSQLite

/// Checkpoints the datastore's write-ahead log outside its one writer.
///
/// SQLite's automatic checkpoint runs inside the commit that lets the log
/// pass 1,000 pages: it copies the log into the database file and syncs
/// it while that writer still holds the write lock, so every other write
/// waits (and a large write makes one due sooner). Here the commit only counts the log's pages (a WAL hook,
/// which replaces the automatic checkpoint), and once the writer has let
/// the write lock go, a passive checkpoint runs on a connection of its own
/// while other writes go on: on the thread that wrote, or where the host
/// says (``Datastore/checkpointRunner``). One runs at a time; a writer that
/// finds one running leaves it be.
final class WALCheckpointer: @unchecked Sendable {
    // @unchecked: the counters, `checkpointing` and `runner` are read and written only under `lock`;
    // `connection` only by the one thread that set `checkpointing` (under the lock) until it clears it.
    /// How many pages the log may hold beyond what was checkpointed: SQLite's own default.
    static let pagesBetweenCheckpoints: Int32 = 1000

    private let path: String
    private let lock = NSLock()
    /// The checkpoints' own connection, opened by the first.
    private var connection: DatabaseQueue?
    /// Pages in the log after the last commit (the log restarts after a complete checkpoint).
    private var logPages: Int32 = 0
    /// Of those, the pages the last checkpoint copied into the database.
    private var checkpointedPages: Int32 = 0
    private var checkpointing = false
    /// Runs a checkpoint it is given (see ``Datastore/checkpointRunner``).
    typealias Runner = @Sendable (_ checkpoint: @escaping @Sendable () -> Void) -> Void

    /// Where checkpoints run; on the writer's thread when nil.
    private var runner: Runner?

    /// Where checkpoints run from now on; nil: on the thread whose write made one due.
    var checkpointRunner: Runner? {
        get { lock.withLock { runner } }
        set { lock.withLock { runner = newValue } }
    }

    /// A checkpointer for the database at `path`.
    init(path: String) {
        self.path = path
    }

    /// Counts the log's pages at each commit of `db`'s connection instead
    /// of checkpointing there. Called as the writer connection opens; this
    /// checkpointer must outlive it (the pool's configuration holds it).
    func install(on db: Database) {
        guard !db.configuration.readonly else { return }
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(db.sqliteConnection, { context, _, _, pages in
            Unmanaged<WALCheckpointer>.fromOpaque(context!).takeUnretainedValue().committed(logPages: pages)
            return SQLITE_OK
        }, context)
    }

    private func committed(logPages pages: Int32) {
        lock.withLock {
            if pages < checkpointedPages { checkpointedPages = 0 }  // the log restarted
            logPages = pages
        }
    }

    /// After a write, once the write lock is released: checkpoints if the
    /// log has grown enough since the last checkpoint and no checkpoint is
    /// running, on this thread or where ``checkpointRunner`` says. A failed
    /// checkpoint is left for a later write (SQLite reads the log either
    /// way; a checkpoint only keeps it short).
    func checkpointIfDue() {
        let (due, elsewhere) = lock.withLock { () -> (Bool, Runner?) in
            guard !checkpointing, logPages - checkpointedPages >= Self.pagesBetweenCheckpoints else { return (false, nil) }
            checkpointing = true
            return (true, self.runner)
        }
        guard due else { return }
        if let elsewhere { elsewhere { self.runClaimedCheckpoint() } } else { runClaimedCheckpoint() }
    }

    /// Runs the checkpoint ``checkpointIfDue()`` claimed (no other runs until it has).
    private func runClaimedCheckpoint() {
        // Only the thread that claimed the checkpoint touches `connection`,
        // and opens it outside the lock the writer's commit hook takes.
        if connection == nil { connection = try? DatabaseQueue(path: path) }
        let result = try? connection?.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        lock.withLock {
            checkpointing = false
            if let result, result.checkpointedFrameCount <= logPages {
                checkpointedPages = Int32(result.checkpointedFrameCount)
            }
        }
    }
}

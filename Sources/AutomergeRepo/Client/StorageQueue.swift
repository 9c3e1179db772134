import NIOConcurrencyHelpers
import NIOPosix

/// A ``RepoClient``'s storage calls, run one at a time in the order they
/// were made, on a thread of the host's blocking-I/O pool.
///
/// A datastore call is a synchronous SQLite transaction that can wait on
/// the disk or on another writer; made from the client's actor it would
/// hold one of Swift's few cooperative threads meanwhile. Writes are queued
/// and not awaited, as automerge-repo's storage subsystem saves in the
/// background; reads are awaited, and see every write queued before them.
/// ``RepoClient/close()`` waits for the queue to empty.
final class StorageQueue: Sendable {
    private let pool: NIOThreadPool
    private let state = NIOLockedValueBox(Jobs())

    private struct Jobs {
        var waiting: [@Sendable () -> Void] = []
        var next = 0
        var draining = false
    }

    /// Runs its jobs on `pool`.
    init(pool: NIOThreadPool) {
        self.pool = pool
    }

    /// Runs `job` after every job added before it.
    func add(_ job: @escaping @Sendable () -> Void) {
        let starts = state.withLockedValue { jobs -> Bool in
            jobs.waiting.append(job)
            defer { jobs.draining = true }
            return !jobs.draining
        }
        // A pool that is shutting down still runs it (with a cancelled state): a write is never dropped.
        if starts { pool.submit { [self] _ in drain() } }
    }

    /// The result of `body`, run after every job added before it.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            add { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Returns once every job added before has run.
    func drained() async {
        await withCheckedContinuation { continuation in add { continuation.resume() } }
    }

    private func drain() {
        while let job = state.withLockedValue({ jobs -> (@Sendable () -> Void)? in
            guard jobs.next < jobs.waiting.count else {
                jobs = Jobs()
                return nil
            }
            let job = jobs.waiting[jobs.next]
            jobs.next += 1
            if jobs.next >= 64, jobs.next * 2 >= jobs.waiting.count {  // jobs run are let go, in O(1) amortized
                jobs.waiting.removeFirst(jobs.next)
                jobs.next = 0
            }
            return job
        }) {
            job()
        }
    }
}

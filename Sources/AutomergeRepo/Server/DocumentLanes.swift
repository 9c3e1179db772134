import AutomergeRepoProtocol
import DequeModule
import NIOConcurrencyHelpers
import NIOPosix

/// Where the server's document work runs: blocking work (SQLite
/// transactions, Automerge applies) on a thread pool, never on Swift's
/// cooperative pool and never inside the hub, one job at a time per
/// document, in the order asked. One document's long apply holds that
/// document's lane only; the others go on, on the pool's other threads.
///
/// Bulk jobs (a large message's apply) run on a second pool when the host
/// gives one, typically fewer threads at a lower priority: a peer's
/// megabytes then cannot hold every thread small edits are waiting for. A
/// document's lane moves between the pools as its jobs require, still one
/// job at a time. A regular job waiting on a lane goes before the bulk
/// jobs waiting there (a small edit does not wait for a stranger's
/// megabytes on a document they share), but passes each at most
/// ``maximumPasses`` times, so bulk work is never starved. Jobs are
/// otherwise run in the order asked; the hub has at most one job of a
/// connection waiting, so each connection's messages keep their order.
final class DocumentLanes: Sendable {
    /// How heavy a job is, which decides its pool.
    enum Work: Sendable {
        case regular
        case bulk
    }

    private struct Job: Sendable {
        let work: Work
        let run: @Sendable () -> Void
        let cancel: @Sendable () -> Void
        /// How many regular jobs went before this one while it waited.
        var passed = 0
    }

    /// How many regular jobs may go before a waiting bulk job.
    static let maximumPasses = 8

    private let pool: NIOThreadPool
    private let bulkPool: NIOThreadPool?
    /// The jobs waiting, per document whose lane is running.
    private let waiting = NIOLockedValueBox<[DocumentId: Deque<Job>]>([:])

    init(pool: NIOThreadPool, bulkPool: NIOThreadPool? = nil) {
        self.pool = pool
        self.bulkPool = bulkPool
    }

    /// Runs `work` on `document`'s lane, after the work asked for it before.
    func run<T: Sendable>(_ document: DocumentId, _ weight: Work = .regular, _ work: @escaping @Sendable () throws -> T)
        async throws -> T
    {
        try await withCheckedThrowingContinuation { continuation in
            submit(document, weight, run: { continuation.resume(with: Result { try work() }) },
                   cancel: { continuation.resume(throwing: CancellationError()) })
        }
    }

    /// Queues `run` on `document`'s lane, after the work asked for it
    /// before; `cancel` instead when the pool has stopped.
    func submit(_ document: DocumentId, _ weight: Work, run: @escaping @Sendable () -> Void,
                cancel: @escaping @Sendable () -> Void)
    {
        let job = Job(work: weight, run: run, cancel: cancel)
        let startsLane = waiting.withLockedValue { waiting -> Bool in
            guard waiting[document] == nil else {
                Self.enqueue(job, into: &waiting[document]!)
                return false
            }
            waiting[document] = []
            return true
        }
        if startsLane { start(document, from: job) }
    }

    /// Queues `job` last, or, when it is regular, before the bulk jobs at
    /// the end of the queue that have not been passed too often.
    private static func enqueue(_ job: Job, into queue: inout Deque<Job>) {
        var position = queue.endIndex
        if job.work == .regular {
            while position > queue.startIndex, queue[position - 1].work == .bulk,
                  queue[position - 1].passed < maximumPasses
            {
                position -= 1
            }
            for index in position..<queue.endIndex { queue[index].passed += 1 }
        }
        queue.insert(job, at: position)
    }

    /// How many jobs wait behind the running one on `document`'s lane.
    func waitingJobs(_ document: DocumentId) -> Int {
        waiting.withLockedValue { $0[document]?.count ?? 0 }
    }

    private func pool(for job: Job) -> NIOThreadPool {
        job.work == .bulk ? bulkPool ?? pool : pool
    }

    /// Drains `document`'s lane from `job` on the pool that job belongs to.
    private func start(_ document: DocumentId, from job: Job) {
        let target = pool(for: job)
        target.submit { [self] state in drain(document, from: job, on: target, active: state == .active) }
    }

    /// Runs `first`, then each job that came for the document meanwhile,
    /// until none is left or one belongs to the other pool (it goes on there).
    private func drain(_ document: DocumentId, from first: Job, on current: NIOThreadPool, active: Bool) {
        var next: Job? = first
        while let job = next {
            guard !active || pool(for: job) === current else { return start(document, from: job) }
            if active { job.run() } else { job.cancel() }
            next = waiting.withLockedValue { waiting -> Job? in
                guard let job = waiting[document]?.popFirst() else {
                    waiting[document] = nil
                    return nil
                }
                return job
            }
        }
    }
}

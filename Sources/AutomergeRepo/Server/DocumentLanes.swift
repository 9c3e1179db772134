import Automerge
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
/// megabytes then cannot hold every thread small edits are waiting for.
/// Bulk jobs run under the host's `ExecutionPolicy` for them, so that
/// none of their work leaves the pool for a thread of normal priority. A
/// document's lane moves between the pools as its jobs require, still one
/// job at a time. A regular job waiting on a lane goes before the bulk
/// jobs waiting there (a small edit does not wait for a stranger's
/// megabytes on a document they share), but passes each at most
/// ``maximumPasses`` times, so bulk work is never starved. Jobs are
/// otherwise run in the order asked; the hub has at most one job of a
/// connection waiting, so each connection's messages keep their order.
///
/// A shutdown goes in two steps. ``beginDraining()`` (its start) only
/// tells the jobs (see ``isDraining``): a job for a peer already gone may
/// then give up. ``stop()`` (the end of its grace period) cancels every job
/// not yet started instead of running it: a shutdown waits for the job
/// running on each lane, never for a queue of strangers' megabytes.
/// Nothing acknowledged is lost, as a message's reply is sent only after
/// its job has stored its changes.
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
    private let bulkPolicy: ExecutionPolicy
    /// The jobs waiting, per document whose lane is running, and whether the lanes have stopped.
    private let state = NIOLockedValueBox(State())

    private struct State {
        var waiting: [DocumentId: Deque<Job>] = [:]
        var isDraining = false
        var isStopped = false
    }

    /// Whether a shutdown has begun.
    var isDraining: Bool { state.withLockedValue(\.isDraining) }

    init(pool: NIOThreadPool, bulkPool: NIOThreadPool? = nil, bulkPolicy: ExecutionPolicy = .singleThreaded) {
        self.pool = pool
        self.bulkPool = bulkPool
        self.bulkPolicy = bulkPolicy
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
        enum Admission { case startsLane, queued, stopped }
        let admission = state.withLockedValue { state -> Admission in
            guard !state.isStopped else { return .stopped }
            guard state.waiting[document] == nil else {
                Self.enqueue(job, into: &state.waiting[document]!)
                return .queued
            }
            state.waiting[document] = []
            return .startsLane
        }
        switch admission {
        case .startsLane: start(document, from: job)
        case .queued: break
        case .stopped: cancel()
        }
    }

    /// Marks the start of a shutdown (see ``isDraining``); every job still runs.
    func beginDraining() {
        state.withLockedValue { $0.isDraining = true }
    }

    /// Cancels every job not yet started, and every job asked for from now
    /// on; the jobs running go on to their end.
    func stop() {
        state.withLockedValue { $0.isStopped = true }
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

    /// Runs `work` on the bulk pool (the regular one when there is none),
    /// apart from every lane: work that no peer waits for. It runs even
    /// once the lanes have stopped.
    func runInBackground(_ work: @escaping @Sendable () -> Void) {
        (bulkPool ?? pool).submit { [bulkPolicy] _ in ExecutionPolicy.withPolicy(bulkPolicy, operation: work) }
    }

    /// How many jobs wait behind the running one on `document`'s lane.
    func waitingJobs(_ document: DocumentId) -> Int {
        state.withLockedValue { $0.waiting[document]?.count ?? 0 }
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
            let runs = active && !state.withLockedValue(\.isStopped)
            if !runs {
                job.cancel()
            } else if job.work == .bulk {
                ExecutionPolicy.withPolicy(bulkPolicy, operation: job.run)
            } else {
                job.run()
            }
            next = state.withLockedValue { state -> Job? in
                guard let job = state.waiting[document]?.popFirst() else {
                    state.waiting[document] = nil
                    return nil
                }
                return job
            }
        }
    }
}

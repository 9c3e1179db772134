import AutomergeRepoProtocol
import DequeModule
import NIOConcurrencyHelpers
import NIOPosix

/// Where the server's document work runs: blocking work (SQLite
/// transactions, Automerge applies) on a thread pool, never on Swift's
/// cooperative pool and never inside the hub, one job at a time per
/// document, in the order asked. One document's long apply holds that
/// document's lane only; the others go on, on the pool's other threads.
final class DocumentLanes: Sendable {
    private struct Job: Sendable {
        let run: @Sendable () -> Void
        let cancel: @Sendable () -> Void
    }

    private let pool: NIOThreadPool
    /// The jobs waiting, per document whose lane is running.
    private let waiting = NIOLockedValueBox<[DocumentId: Deque<Job>]>([:])

    init(pool: NIOThreadPool) {
        self.pool = pool
    }

    /// Runs `work` on `document`'s lane, after the work asked for it before.
    func run<T: Sendable>(_ document: DocumentId, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job = Job(run: { continuation.resume(with: Result { try work() }) },
                          cancel: { continuation.resume(throwing: CancellationError()) })
            let startsLane = waiting.withLockedValue { waiting -> Bool in
                guard waiting[document] == nil else {
                    waiting[document]!.append(job)
                    return false
                }
                waiting[document] = []
                return true
            }
            if startsLane { pool.submit { [self] state in drain(document, from: job, active: state == .active) } }
        }
    }

    /// Runs `first`, then each job that came for the document meanwhile, until none is left.
    private func drain(_ document: DocumentId, from first: Job, active: Bool) {
        var next: Job? = first
        while let job = next {
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

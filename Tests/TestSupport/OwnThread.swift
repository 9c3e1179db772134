import Foundation
import Testing

/// A test trait that runs each test case on a thread of its own instead of
/// Swift's cooperative pool.
///
/// The pool has one thread per core: two on a small CI machine. A test that
/// computes for minutes without suspending (a property test of thousands of
/// merges in a debug build) holds one of them all that time; two such tests
/// hold both, and every in-process server of the suite, whose tasks need the
/// pool, stops answering. Tests that compute for long carry this trait, so
/// the pool stays free for the tests that wait.
///
/// Everything the test case runs in its own task and in the child tasks it
/// starts goes to the thread (a task executor preference); tasks it starts
/// with `Task {}` and actors' work with other callers stay on the pool.
/// At most one such test case per core runs at a time (the others wait,
/// suspended), so the suite's parallelism stays what the pool would allow.
public struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws
    {
        guard testCase != nil else { return try await function() }
        await OwnThreadPermits.shared.acquire()
        defer { OwnThreadPermits.shared.release() }
        let executor = ThreadExecutor(name: "test: \(test.name)")
        defer { executor.finish() }
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension OwnThreadTrait {
    /// Whether the caller runs on a test case's own thread.
    public static var isCurrentThreadOwn: Bool {
        Thread.current.threadDictionary[ThreadExecutor.marker] != nil
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Runs each test case on a thread of its own, off the cooperative pool.
    public static var ownThread: Self { OwnThreadTrait() }
}

/// A task executor that runs its jobs, in order, on one thread it owns.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    static let marker = "AutomergeTestSupport.ThreadExecutor"
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var finished = false

    init(name: String) {
        let thread = Thread { [self] in
            Thread.current.name = name
            Thread.current.threadDictionary[Self.marker] = true
            runJobs()
        }
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if finished {
            // The test case has returned, so nothing should arrive; if a
            // straggler does, it still runs rather than waiting forever.
            condition.unlock()
            Thread { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }.start()
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread end once it has run the jobs already enqueued.
    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while let job = nextJob() {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    private func nextJob() -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !finished { condition.wait() }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }
}

/// Permits for test cases on threads of their own: one per core.
final class OwnThreadPermits: @unchecked Sendable {
    static let shared = OwnThreadPermits(count: ProcessInfo.processInfo.activeProcessorCount)

    private let lock = NSLock()
    /// Guarded by `lock`.
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { available = max(1, count) }

    func acquire() async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if available > 0 {
                available -= 1
                lock.unlock()
                continuation.resume()
            } else {
                waiting.append(continuation)
                lock.unlock()
            }
        }
    }

    /// Hands the permit to the longest waiter, if any.
    func release() {
        lock.lock()
        if waiting.isEmpty {
            available += 1
            lock.unlock()
        } else {
            let next = waiting.removeFirst()
            lock.unlock()
            next.resume()
        }
    }
}

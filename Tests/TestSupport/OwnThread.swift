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
///
/// A time limit given to the trait counts from when the test case has its
/// thread. Swift Testing's `.timeLimit` also counts the wait for a permit,
/// which behind two long property tests can be most of ten minutes.
///
/// A test that measures a child process (its memory, how soon it answers)
/// takes every permit instead (``Trait/ownThreadAlone``): no long
/// computation of the suite then runs beside it and takes the child's cores.
public struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    /// The longest a test case may run once it has its thread, if limited.
    public var timeLimit: Duration?
    /// Whether a test case takes every permit, running with no other
    /// `.ownThread` case beside it.
    public var alone = false

    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws
    {
        guard testCase != nil else { return try await function() }
        try await Self.runCase(named: test.name, permits: .shared, alone: alone, timeLimit: timeLimit,
                               onTimeout: { limit in
                                   Issue.record("Time limit was exceeded: \(limit), counted from when the test case had its own thread")
                               },
                               body: function)
    }

    /// Runs `body` on a thread of its own once `permits` lets it, calling
    /// `onTimeout` (and cancelling `body`) if it runs longer than `timeLimit`.
    /// A case already on its own thread (the trait on a suite and on its
    /// test) keeps it and takes no second permit. `alone`: takes every permit.
    public static func runCase(named name: String, permits: OwnThreadPermits, alone: Bool = false, timeLimit: Duration?,
                               onTimeout: @escaping @Sendable (Duration) -> Void,
                               body: @Sendable () async throws -> Void) async throws
    {
        if isCurrentThreadOwn {
            return try await run(body, timeLimit: timeLimit, onTimeout: onTimeout)
        }
        let count = alone ? permits.capacity : 1
        await permits.acquire(count)
        defer { permits.release(count) }
        let executor = ThreadExecutor(name: "test: \(name)")
        defer { executor.finish() }
        try await withTaskExecutorPreference(executor) {
            try await run(body, timeLimit: timeLimit, onTimeout: onTimeout)
        }
    }

    private static func run(_ body: @Sendable () async throws -> Void, timeLimit: Duration?,
                            onTimeout: @escaping @Sendable (Duration) -> Void) async throws
    {
        guard let timeLimit else { return try await body() }
        try await withoutActuallyEscaping(body) { body in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await body() }
                // On the pool: the case's own thread may be busy computing.
                group.addTask(executorPreference: globalConcurrentExecutor) {
                    try await Task.sleep(for: timeLimit)
                    onTimeout(timeLimit)
                }
                try await group.next()
                group.cancelAll()
            }
        }
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

    /// Runs each test case on a thread of its own, off the cooperative pool,
    /// and records an issue if it runs longer than `timeLimit` once it has
    /// its thread.
    public static func ownThread(timeLimit: Duration) -> Self { OwnThreadTrait(timeLimit: timeLimit) }

    /// Runs each test case on a thread of its own with no other `.ownThread`
    /// test case beside it.
    public static var ownThreadAlone: Self { OwnThreadTrait(alone: true) }
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

/// Permits for test cases on threads of their own: one per core. Waiters
/// are served in order, so a case that needs every permit is not passed
/// over by later cases that need one.
public final class OwnThreadPermits: @unchecked Sendable {
    /// The permits every `.ownThread` test case shares.
    public static let shared = OwnThreadPermits(count: ProcessInfo.processInfo.activeProcessorCount)

    /// How many permits there are in all.
    public let capacity: Int
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var available: Int
    private var waiting: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Permits for `count` test cases at a time.
    public init(count: Int) {
        capacity = max(1, count)
        available = capacity
    }

    /// Waits for `count` permits (at most ``capacity``).
    public func acquire(_ count: Int = 1) async {
        let count = clamped(count)
        await withCheckedContinuation { continuation in
            lock.lock()
            if waiting.isEmpty && available >= count {
                available -= count
                lock.unlock()
                continuation.resume()
            } else {
                waiting.append((count, continuation))
                lock.unlock()
            }
        }
    }

    /// `count` as a number of permits one case may hold: 1 to ``capacity``.
    private func clamped(_ count: Int) -> Int { min(max(1, count), capacity) }

    /// Gives back `count` permits, serving the waiters in order.
    public func release(_ count: Int = 1) {
        lock.lock()
        available += clamped(count)
        var ready: [CheckedContinuation<Void, Never>] = []
        while let first = waiting.first, first.count <= available {
            available -= first.count
            ready.append(waiting.removeFirst().continuation)
        }
        lock.unlock()
        for continuation in ready { continuation.resume() }
    }
}

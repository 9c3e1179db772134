import AutomergeTestSupport
import Foundation
import Testing

/// The trait that keeps long computations off the cooperative pool.
@Suite("Test support: own thread")
struct OwnThreadTests {
    /// Whether the caller runs on a test case's own thread (a synchronous function may ask).
    static func onOwnThread() -> Bool { OwnThreadTrait.isCurrentThreadOwn }

    @Test("a test case with .ownThread runs, with its child tasks, on a thread of its own", .ownThread)
    func runsOnItsThread() async {
        #expect(Self.onOwnThread())
        await Task.yield()
        #expect(Self.onOwnThread())
        let children = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<3 { group.addTask { Self.onOwnThread() } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(children == [true, true, true])
    }

    @Test("without it a test runs on the cooperative pool")
    func runsOnThePool() {
        #expect(!Self.onOwnThread())
    }

    @Test("a time limit counts from when the case has its thread, not while it waits for a permit")
    func timeLimitExcludesTheWait() async throws {
        let permits = OwnThreadPermits(count: 1)
        await permits.acquire()
        let timedOut = Locked(false)
        async let waiting: Void = OwnThreadTrait.runCase(
            named: "waits", permits: permits, timeLimit: .milliseconds(500),
            onTimeout: { _ in timedOut.update { $0 = true } }, body: {})
        try await Task.sleep(for: .seconds(1))
        permits.release()
        try await waiting
        #expect(!timedOut.value)
    }

    // Swift Testing's limit only stops a hang if the cancellation does not work.
    @Test("a case that runs past its time limit is reported and cancelled", .timeLimit(.minutes(10)))
    func timeLimitStopsALongCase() async throws {
        let timedOut = Locked(false), cancelled = Locked(false)
        try await OwnThreadTrait.runCase(
            named: "runs long", permits: OwnThreadPermits(count: 1), timeLimit: .milliseconds(100),
            onTimeout: { _ in timedOut.update { $0 = true } },
            body: {
                try? await Task.sleep(for: .seconds(3600))
                if Task.isCancelled { cancelled.update { $0 = true } }
            })
        #expect(timedOut.value)
        #expect(cancelled.value)
    }

    @Test("a case that runs alone waits for every permit, and cases that come after it wait for it")
    func aloneTakesEveryPermit() async throws {
        let permits = OwnThreadPermits(count: 2)
        await permits.acquire()
        let ran = Locked<[String]>([])
        async let alone: Void = OwnThreadTrait.runCase(
            named: "alone", permits: permits, alone: true, timeLimit: nil, onTimeout: { _ in }, body: { ran.update { $0.append("alone") } })
        try await Task.sleep(for: .milliseconds(300))
        async let later: Void = OwnThreadTrait.runCase(
            named: "later", permits: permits, timeLimit: nil, onTimeout: { _ in }, body: { ran.update { $0.append("later") } })
        try await Task.sleep(for: .milliseconds(300))
        #expect(ran.value == [], "one permit is free, but the first waiter needs two")
        permits.release()
        try await alone
        try await later
        #expect(ran.value == ["alone", "later"])
    }
}

/// A value read and changed from any thread.
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}

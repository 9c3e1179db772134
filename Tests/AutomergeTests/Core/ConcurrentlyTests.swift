#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Testing
@testable import Automerge

/// `Concurrently.run` decides on which thread each half runs: a load keeps
/// its resident memory down only if the half that frees the most runs on
/// the calling thread (see its documentation).
@Suite("Running two pieces of work at once")
struct ConcurrentlyTests {
    @Test("the first piece of work runs on the calling thread and both run once, however Dispatch schedules them")
    func firstRunsOnTheCallingThread() {
        let caller = pthread_self()
        for round in 0..<500 {
            let (firstOnCaller, second) = Concurrently.run(
                { pthread_equal(pthread_self(), caller) != 0 },
                { round * 2 })
            #expect(firstOnCaller, "round \(round): the first piece ran on another thread")
            #expect(second == round * 2)
        }
    }

    @Test("a second piece that waits for the first finishes, even with every worker busy running others")
    func secondWaitingForFirstNeverDeadlocks() {
        // 64 callers at once, each on a worker of its own: more than the
        // pool lends, so some callers find no worker for their second piece
        // and must take it back once their first is done.
        let finished = Counter()
        DispatchQueue.concurrentPerform(iterations: 64) { caller in
            let ready = DispatchSemaphore(value: 0)
            let (first, second) = Concurrently.run({ () -> Int in
                ready.signal()
                return caller
            }, { () -> Int in
                ready.wait()  // what the fed op-set build does with the rows the decode feeds it
                return caller * 2
            })
            if first == caller && second == caller * 2 { finished.increment() }
        }
        #expect(finished.value == 64)
    }

    private final class Counter: @unchecked Sendable {
        private let lock = Lock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func increment() { lock.withLock { count += 1 } }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
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
}

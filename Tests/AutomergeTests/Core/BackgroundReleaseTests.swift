#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import Testing
@testable import Automerge

/// A batch's decoded changes are freed on a worker (`BackgroundRelease`):
/// they must still be freed, once, and small values where they are.
@Suite("Releasing a large value on a worker")
struct BackgroundReleaseTests {
    /// Signals when the last reference to it goes, and on which thread.
    final class Tracked: @unchecked Sendable {
        let freed: DispatchSemaphore
        let freedOnCaller: UnsafeMutablePointer<Bool>
        let caller: pthread_t
        init(freed: DispatchSemaphore, freedOnCaller: UnsafeMutablePointer<Bool>, caller: pthread_t) {
            (self.freed, self.freedOnCaller, self.caller) = (freed, freedOnCaller, caller)
        }
        deinit {
            freedOnCaller.pointee = pthread_equal(pthread_self(), caller) != 0
            freed.signal()
        }
    }

    func release(count: Int) -> (freed: Bool, onCaller: Bool) {
        let freed = DispatchSemaphore(value: 0)
        let onCaller = UnsafeMutablePointer<Bool>.allocate(capacity: 1)
        defer { onCaller.deallocate() }
        onCaller.pointee = false
        let values = [Tracked(freed: freed, freedOnCaller: onCaller, caller: pthread_self())]
        BackgroundRelease.release(consume values, count: count)
        let done = freed.wait(timeout: .now() + 10) == .success
        return (done, onCaller.pointee)
    }

    @Test("a value of at least the threshold's elements is freed on another thread")
    func largeValuesAreFreedOnAWorker() {
        let outcome = release(count: BackgroundRelease.threshold)
        #expect(outcome.freed, "the value was never freed")
        #expect(!outcome.onCaller)
    }

    @Test("a smaller value is freed before the call returns, on the calling thread")
    func smallValuesAreFreedWhereTheyAre() {
        let outcome = release(count: BackgroundRelease.threshold - 1)
        #expect(outcome.freed)
        #expect(outcome.onCaller)
    }

    @Test("a batch applied in one call still leaves every change applied and its decoded form freed")
    func batchesApplyAsBefore() throws {
        let source = Document()
        var chunks = Data()
        for index in 0..<1_200 {
            let before = source.heads()
            try source.put(obj: .ROOT, key: "k\(index % 50)", value: .Int(Int64(index)))
            source.commitWith()
            chunks.append(try source.encodeChangesSince(heads: before))
        }
        let target = Document()
        try target.applyEncodedChanges(encoded: chunks)
        #expect(target.heads() == source.heads())
        #expect(try target.get(obj: .ROOT, key: "k49") == .Scalar(.Int(1_199)))
    }
}

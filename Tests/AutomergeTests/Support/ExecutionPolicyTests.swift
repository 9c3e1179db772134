#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
@testable import Automerge

/// ``ExecutionPolicy``: the host decides whether the library's work leaves
/// the calling thread, and every policy gives the same documents and bytes.
@Suite("The host's execution policy")
struct ExecutionPolicyTests {
    @Test("withPolicy sets the policy of what it runs, nested, and in its task or on its thread alone")
    func scoped() async throws {
        let outside = ExecutionPolicy.current
        #expect(outside == ExecutionPolicy.processDefault)
        let custom = ExecutionPolicy(usesOtherThreads: true, releasesInBackground: false, trimsHeapAfterLoads: false)
        ExecutionPolicy.withPolicy(.singleThreaded) {
            #expect(ExecutionPolicy.current == .singleThreaded)
            ExecutionPolicy.withPolicy(custom) { #expect(ExecutionPolicy.current == custom) }
            #expect(ExecutionPolicy.current == .singleThreaded)
            #expect(Self.onAnotherThread { ExecutionPolicy.current } == ExecutionPolicy.processDefault)
        }
        #expect(ExecutionPolicy.current == outside)
        await ExecutionPolicy.withPolicy(custom) {
            await Task.yield()
            #expect(ExecutionPolicy.current == custom)
        }
        // Outside any task: bound to the thread for the duration.
        let onThread = Self.onAnotherThread {
            ExecutionPolicy.withPolicy(.singleThreaded) { ExecutionPolicy.current }
        }
        #expect(onThread == .singleThreaded)
    }

    @Test("single-threaded, a split call runs both pieces on the calling thread, the first first")
    func singleThreadedRunsInTurn() {
        let caller = pthread_self()
        ExecutionPolicy.withPolicy(.singleThreaded) {
            var order: [String] = []
            let (firstHere, secondHere) = Concurrently.run({
                usleep(20_000)  // time for a worker to take the second piece, were it allowed to
                order.append("first")
                return pthread_equal(pthread_self(), caller) != 0
            }, {
                order.append("second")
                return pthread_equal(pthread_self(), caller) != 0
            })
            let (nestedFirstHere, nestedSecondHere) = Concurrently.runOnNewThread({
                order.append("nested first")
                return pthread_equal(pthread_self(), caller) != 0
            }, {
                order.append("nested second")
                return pthread_equal(pthread_self(), caller) != 0
            })
            #expect([firstHere, secondHere, nestedFirstHere, nestedSecondHere] == [true, true, true, true])
            #expect(order == ["first", "second", "nested first", "nested second"])
        }
    }

    @Test("Rust's documents load and save to the same bytes, or fail alike, under every policy",
          .enabled(if: SharedFiles.available, SharedFiles.skipMessage))
    func identicalLoadsAndSaves() throws {
        var files = SharedFiles.files(in: "fixtures/rust-fixtures", suffix: ".automerge")
        #if !DEBUG
        // The documents large enough to split their work: loaded and saved twice each, they take
        // half a minute unoptimized, so the release run (which CI makes too) covers them.
        files += SharedFiles.files(in: "docs", suffix: ".automerge")
        #endif
        try #require(files.count > 2)
        for file in files {
            let bytes = Data(try SharedFiles.bytes(file))
            let parallel = ExecutionPolicy.withPolicy(.parallel) { Self.loadAndSave(bytes) }
            let alone = ExecutionPolicy.withPolicy(.singleThreaded) { Self.loadAndSave(bytes) }
            #expect(parallel == alone, "\(file.lastPathComponent)")
        }
    }

    @Test("a batch of thousands of changes applies to the same document under every policy")
    func identicalApplies() throws {
        let source = Document()
        let text = try source.putObject(obj: .ROOT, key: "text", ty: .Text)
        for index in 0..<3_000 {
            try source.spliceText(obj: text, start: UInt64(index), delete: 0, value: "\(index % 10)")
            try source.put(obj: .ROOT, key: "key\(index % 50)", value: .Int(Int64(index)))
            source.commitWith()
        }
        let changes = source.save()
        let results = try [ExecutionPolicy.parallel, .singleThreaded].map { policy in
            try ExecutionPolicy.withPolicy(policy) { () -> (Data, String) in
                let target = Document()
                try target.applyEncodedChanges(encoded: changes)
                return (target.save(), try target.text(obj: text))
            }
        }
        #expect(results[0].0 == results[1].0)
        #expect(results[0].1 == results[1].1)
    }

    /// A load's saved bytes, or what it threw.
    private enum Outcome: Equatable {
        case saved(Data)
        case failed(String)
    }

    private static func loadAndSave(_ bytes: Data) -> Outcome {
        do {
            return .saved(try Document(bytes).save())
        } catch {
            return .failed("\(error)")
        }
    }

    /// What `body` returns, run on a thread of its own (no task).
    private static func onAnotherThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let result = LockedResult<T>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            result.set(body())
            done.signal()
        }
        thread.start()
        done.wait()
        return result.get()!
    }

    private final class LockedResult<T>: @unchecked Sendable {  // `value` is read and written under `lock`
        private let lock = Lock()
        private var value: T?
        func set(_ new: T) { lock.withLock { value = new } }
        func get() -> T? { lock.withLock { value } }
    }
}

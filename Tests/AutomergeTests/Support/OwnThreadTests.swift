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
}

import Foundation
import Testing
import AutomergeTestSupport

@Suite("Test support: the automerge executable")
struct AutomergeExecutableTests {
    @Test("a run past its time limit is killed and says which command hung")
    func runPastItsLimitIsKilled() async throws {
        try #require(AutomergeExecutable.url != nil, "the automerge executable is not built beside the tests")
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("hung-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: store) }
        let started = ContinuousClock.now
        // A server runs until stopped: the run goes past its limit.
        let output = try await AutomergeExecutable.run(["serve", "--port", "0", "--store", store.path], timeLimit: .seconds(2))
        #expect(output.status != 0)
        #expect(output.stderr.contains("killed: `automerge serve --port 0"), "\(output.stderr)")
        #expect(ContinuousClock.now - started < .seconds(60))
    }
}

import Foundation
import Testing
@testable import Automerge

@Suite("In-order pipeline")
struct InOrderPipelineTests {
    final class Computed: @unchecked Sendable {
        private let lock = Lock()
        private var chunks: [Int] = []
        func note(_ chunk: Int) { lock.withLock { chunks.append(chunk) } }
        var all: [Int] { lock.withLock { chunks } }
    }

    @Test("every chunk is computed once and consumed in order, however long each takes", arguments: [1, 2, 3, 17, 64])
    func consumedInOrder(chunkCount: Int) {
        let computed = Computed()
        var consumed: [(Int, [Int])] = []
        InOrderPipeline.run(chunkCount: chunkCount, compute: { chunk -> [Int] in
            computed.note(chunk)
            // Uneven work: later chunks may finish before earlier ones.
            if chunk % 3 == 0 { usleep(UInt32(200 * (chunk % 5 + 1))) }
            return [chunk, chunk * chunk]
        }) { chunk, output in
            consumed.append((chunk, output))
        }
        #expect(consumed.map(\.0) == Array(0..<chunkCount))
        #expect(consumed.allSatisfy { $0.1 == [$0.0, $0.0 * $0.0] })
        #expect(computed.all.sorted() == Array(0..<chunkCount))
    }

    @Test("no chunks: nothing is computed or consumed")
    func empty() {
        var calls = 0
        InOrderPipeline.run(chunkCount: 0, compute: { _ in calls += 1 }) { _, _ in calls += 1 }
        #expect(calls == 0)
    }
}

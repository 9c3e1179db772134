@testable import AutomergeRepo
import Dispatch
import NIOConcurrencyHelpers
import NIOPosix
import Testing

/// ``DocumentLanes``: one job at a time per document, in order, whichever
/// pool a job runs on; bulk work on its own pool holds no regular work.
@Suite("Document lanes: per-document order, bulk work apart")
struct DocumentLanesTests {
    @Test("a document's jobs run one at a time and in the order asked, moving between the pools")
    func orderAcrossPools() async throws {
        try await withPools(regular: 2, bulk: 1) { lanes in
            let document = DocumentId.random()
            let log = NIOLockedValueBox<[Int]>([]), running = NIOLockedValueBox(0)
            let weights: [DocumentLanes.Work] = (0..<40).map { $0 % 3 == 0 ? .bulk : .regular }
            let held = DispatchSemaphore(value: 0), holding = NIOLockedValueBox(false)
            var jobs: [Task<Void, any Error>] = []
            for (index, weight) in weights.enumerated() {
                jobs.append(Task {
                    try await lanes.run(document, weight) {
                        if index == 0 {
                            holding.withLockedValue { $0 = true }
                            _ = held.wait(timeout: .now() + 60)
                        }
                        #expect(running.withLockedValue { $0 += 1; return $0 } == 1, "two jobs of one document at once")
                        usleep(200)
                        running.withLockedValue { $0 -= 1 }
                        log.withLockedValue { $0.append(index) }
                    }
                })
                // The next is asked only once this one waits on the lane (the first holds it).
                if index == 0 { await eventually("the first job holds the lane") { holding.withLockedValue { $0 } } }
                if index > 0 { await eventually("job \(index) queued") { lanes.waitingJobs(document) == index } }
            }
            held.signal()
            for job in jobs { try await job.value }
            #expect(log.withLockedValue { $0 } == Array(weights.indices))
            #expect(lanes.waitingJobs(document) == 0)
        }
    }

    @Test("bulk work that holds every bulk thread holds no regular work, not even on a one-thread regular pool")
    func bulkApart() async throws {
        try await withPools(regular: 1, bulk: 1) { lanes in
            let held = DispatchSemaphore(value: 0)
            let heavy = Task { try await lanes.run(DocumentId.random(), .bulk) { _ = held.wait(timeout: .now() + 60) } }
            try await Task.sleep(for: .milliseconds(50))
            let answered = NIOLockedValueBox(false)
            let light = Task { try await lanes.run(DocumentId.random(), .regular) { answered.withLockedValue { $0 = true } } }
            await eventually("the regular job is done while the bulk pool is held", timeout: .seconds(10)) {
                answered.withLockedValue { $0 }
            }
            held.signal()
            try await heavy.value
            try await light.value
        }
    }

    @Test("without a bulk pool, bulk work runs on the regular pool")
    func noBulkPool() async throws {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let lanes = DocumentLanes(pool: pool)
        #expect(try await lanes.run(DocumentId.random(), .bulk) { 42 } == 42)
        try await pool.shutdownGracefully()
    }

    private func withPools(regular: Int, bulk: Int, _ body: (DocumentLanes) async throws -> Void) async throws {
        let regularPool = NIOThreadPool(numberOfThreads: regular), bulkPool = NIOThreadPool(numberOfThreads: bulk)
        regularPool.start()
        bulkPool.start()
        try await body(DocumentLanes(pool: regularPool, bulkPool: bulkPool))
        try await regularPool.shutdownGracefully()
        try await bulkPool.shutdownGracefully()
    }
}

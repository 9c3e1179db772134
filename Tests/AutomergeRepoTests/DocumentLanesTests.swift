import Automerge
@testable import AutomergeRepo
import AutomergeTestSupport
import Dispatch
import NIOConcurrencyHelpers
import NIOPosix
import Testing

/// ``DocumentLanes``: one job at a time per document, whichever pool a job
/// runs on, small edits before the bulk work waiting on their document;
/// bulk work on its own pool holds no regular work.
/// Jobs are submitted and awaited without Swift's cooperative pool, which
/// the rest of the suite may keep busy.
@Suite("Document lanes: one job at a time per document, bulk work apart")
struct DocumentLanesTests {
    @Test("a document's jobs run one at a time, moving between the pools; each kind in the order asked, a bulk job passed at most maximumPasses times")
    func orderAcrossPools() async throws {
        try await withPools(regular: 2, bulk: 1) { lanes in
            let document = DocumentId.random()
            let log = NIOLockedValueBox<[Int]>([]), running = NIOLockedValueBox(0), overlaps = NIOLockedValueBox(0)
            let weights: [DocumentLanes.Work] = (0..<60).map { $0 % 3 == 0 ? .bulk : .regular }
            let held = DispatchSemaphore(value: 0), finished = DispatchGroup()
            for (index, weight) in weights.enumerated() {
                finished.enter()
                lanes.submit(document, weight, run: {
                    if index == 0 { _ = held.wait(timeout: .now() + 60) }
                    if running.withLockedValue({ $0 += 1; return $0 }) > 1 { overlaps.withLockedValue { $0 += 1 } }
                    usleep(200)
                    running.withLockedValue { $0 -= 1 }
                    log.withLockedValue { $0.append(index) }
                    finished.leave()
                }, cancel: { finished.leave() })
            }
            #expect(lanes.waitingJobs(document) == weights.count - 1)
            held.signal()
            let allRan = try await blockingWork { finished.wait(timeout: .now() + 60) == .success }
            #expect(allRan)
            #expect(overlaps.withLockedValue { $0 } == 0, "two jobs of one document ran at once")
            let order = log.withLockedValue { $0 }
            #expect(order.sorted() == Array(weights.indices))
            #expect(order.filter { weights[$0] == .bulk } == weights.indices.filter { weights[$0] == .bulk })
            #expect(order.filter { weights[$0] == .regular } == weights.indices.filter { weights[$0] == .regular })
            for (position, index) in order.enumerated() where weights[index] == .bulk {
                let passedBy = order[..<position].filter { $0 > index }.count
                #expect(passedBy <= DocumentLanes.maximumPasses, "bulk job \(index) was passed \(passedBy) times")
            }
            #expect(order != Array(weights.indices), "no regular job went before a waiting bulk job")
            #expect(lanes.waitingJobs(document) == 0)
        }
    }

    @Test("a small edit waiting on a document goes before the bulk work waiting there")
    func regularBeforeWaitingBulk() async throws {
        try await withPools(regular: 1, bulk: 1) { lanes in
            let document = DocumentId.random()
            let log = NIOLockedValueBox<[String]>([])
            let held = DispatchSemaphore(value: 0), finished = DispatchGroup()
            for (name, weight) in [("running", DocumentLanes.Work.regular), ("bulk", .bulk), ("edit", .regular)] {
                finished.enter()
                lanes.submit(document, weight, run: {
                    if name == "running" { _ = held.wait(timeout: .now() + 60) }
                    log.withLockedValue { $0.append(name) }
                    finished.leave()
                }, cancel: { finished.leave() })
            }
            held.signal()
            let allRan = try await blockingWork { finished.wait(timeout: .now() + 60) == .success }
            #expect(allRan)
            #expect(log.withLockedValue { $0 } == ["running", "edit", "bulk"])
        }
    }

    @Test("after stop, the running job finishes and every job waiting or asked for later is cancelled, on either pool")
    func stopCancelsWhatHasNotStarted() async throws {
        try await withPools(regular: 1, bulk: 1) { lanes in
            let document = DocumentId.random()
            let ran = NIOLockedValueBox<[String]>([]), cancelled = NIOLockedValueBox<[String]>([])
            let queued = DispatchSemaphore(value: 0), finished = DispatchGroup()
            @Sendable func submit(_ name: String, _ weight: DocumentLanes.Work, on document: DocumentId) {
                finished.enter()
                lanes.submit(document, weight, run: {
                    if name == "running" {
                        // Stopped from inside the running job, once the others wait behind it: nothing
                        // outside the pools (the suite's busy cooperative pool) decides the order.
                        _ = queued.wait(timeout: .now() + 60)
                        lanes.stop()
                        submit("later", .regular, on: DocumentId.random())
                    }
                    ran.withLockedValue { $0.append(name) }
                    finished.leave()
                }, cancel: {
                    cancelled.withLockedValue { $0.append(name) }
                    finished.leave()
                })
            }
            submit("running", .regular, on: document)
            submit("waiting bulk", .bulk, on: document)
            submit("waiting edit", .regular, on: document)
            queued.signal()
            let allEnded = try await blockingWork { finished.wait(timeout: .now() + 60) == .success }
            #expect(allEnded)
            #expect(ran.withLockedValue { $0 } == ["running"])
            #expect(cancelled.withLockedValue { $0 }.sorted() == ["later", "waiting bulk", "waiting edit"])
            #expect(lanes.waitingJobs(document) == 0)
        }
    }

    @Test("bulk work that holds every bulk thread holds no regular work, not even on a one-thread regular pool")
    func bulkApart() async throws {
        try await withPools(regular: 1, bulk: 1) { lanes in
            let held = DispatchSemaphore(value: 0), heavyDone = DispatchSemaphore(value: 0)
            let lightDone = DispatchSemaphore(value: 0)
            lanes.submit(DocumentId.random(), .bulk, run: {
                _ = held.wait(timeout: .now() + 60)
                heavyDone.signal()
            }, cancel: { heavyDone.signal() })
            lanes.submit(DocumentId.random(), .regular, run: { lightDone.signal() }, cancel: {})
            let lightRan = try await blockingWork { lightDone.wait(timeout: .now() + 10) == .success }
            #expect(lightRan, "the regular job waited for the bulk job of another document")
            held.signal()
            let heavyRan = try await blockingWork { heavyDone.wait(timeout: .now() + 60) == .success }
            #expect(heavyRan)
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

    @Test("bulk jobs run under the host's execution policy for bulk work, regular jobs under the process's")
    func bulkExecutionPolicy() async throws {
        let forBulk = ExecutionPolicy(usesOtherThreads: false, releasesInBackground: true, trimsHeapAfterLoads: false)
        let regularPool = NIOThreadPool(numberOfThreads: 1), bulkPool = NIOThreadPool(numberOfThreads: 1)
        regularPool.start()
        bulkPool.start()
        for lanes in [DocumentLanes(pool: regularPool, bulkPool: bulkPool, bulkPolicy: forBulk),
                      DocumentLanes(pool: regularPool, bulkPolicy: forBulk)]
        {
            let document = DocumentId.random()
            #expect(try await lanes.run(document, .bulk) { ExecutionPolicy.current } == forBulk)
            #expect(try await lanes.run(document, .regular) { ExecutionPolicy.current } == ExecutionPolicy.processDefault)
        }
        try await regularPool.shutdownGracefully()
        try await bulkPool.shutdownGracefully()
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

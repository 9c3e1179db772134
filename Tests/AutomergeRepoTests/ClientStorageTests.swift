import Automerge
import Foundation
import NIOConcurrencyHelpers
import Testing
import AutomergeTestSupport
@testable import AutomergeRepo
@testable import AutomergeStore

/// A client's storage calls are SQLite transactions that block; they run
/// on the host's blocking-I/O threads, never on Swift's cooperative ones.
@Suite("automerge-repo client: storage off the cooperative pool", .ownThread)
struct ClientStorageTests {
    @Test("while SQLite's writer is held elsewhere, more clients than cores create, edit and find documents; once it is free and they close, every edit is stored")
    func clientsDoNotWaitOnTheWriter() async throws {
        let datastore = try temporaryDatastore()
        let known = Document()
        try known.put(obj: .ROOT, key: "title", value: .String("stored before"))
        let knownId = DocumentId.random()
        try datastore.storeAutomergeDocument(known, docId: knownId.description)

        let writer = HeldResource { wait in datastore.database.writeWithoutTransaction { _ in wait() } }
        let clients = (0..<(ProcessInfo.processInfo.activeProcessorCount * 2 + 2)).map { _ in
            loopbackClient(url: "ws://127.0.0.1:1", storage: datastore)  // no server: the clients work offline
        }
        let reader = loopbackClient(url: "ws://127.0.0.1:1", storage: datastore)
        // Reads go first: the clients' writes, blocked, will hold the blocking-I/O pool's threads.
        let found = try await reader.find(knownId, timeout: .seconds(5))
        #expect(rootString(found.document, "title") == "stored before")
        let created = try await withThrowingTaskGroup(of: DocumentId.self) { group in
            for (index, client) in clients.enumerated() {
                group.addTask {
                    let handle = try await client.create()
                    try handle.document.put(obj: .ROOT, key: "edit", value: .Int(Int64(index)))
                    return handle.id
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        await Task.detached {}.value  // the pool, where the clients' connection loops run, has a thread free
        // Every call above returned while the writer was still held (before the holder gave up waiting):
        // on this test's own thread, where the clients' actors ran their work for it.
        #expect(await writer.release(), "the clients' calls waited for SQLite's writer")

        for client in clients + [reader] { await client.close() }
        let stored = try created.map { try datastore.storedAutomergeDocument($0.description) }
        #expect(stored.allSatisfy { $0 != nil })
        #expect(stored.filter { document in (try? document?.get(obj: .ROOT, key: "edit")) != nil }.count == clients.count)
    }

    @Test("the storage queue runs its jobs one at a time in the order added; a read sees every write added before it")
    func storageQueueOrder() async throws {
        let queue = StorageQueue(pool: .singleton)
        let log = NIOLockedValueBox<[Int]>([])
        let running = NIOLockedValueBox(0)
        let overlapped = NIOLockedValueBox(false)
        for index in 0..<1000 {
            queue.add {
                if running.withLockedValue({ $0 += 1; return $0 }) > 1 { overlapped.withLockedValue { $0 = true } }
                log.withLockedValue { $0.append(index) }
                running.withLockedValue { $0 -= 1 }
            }
        }
        let seen = try await queue.run { log.withLockedValue { $0.count } }
        #expect(seen == 1000)
        await queue.drained()
        #expect(log.withLockedValue { $0 } == Array(0..<1000))
        #expect(!overlapped.withLockedValue { $0 })
        await #expect(throws: CancellationError.self) { try await queue.run { throw CancellationError() } }
    }
}

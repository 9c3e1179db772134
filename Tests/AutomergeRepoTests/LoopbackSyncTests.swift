import Automerge
import AutomergeRepo
import AutomergeStore
import Foundation
import Testing

/// Our client against our server on loopback: documents made on one client
/// reach the others through the server, both ways, and survive the server
/// and the clients going away and coming back.
@Suite("automerge-repo loopback: sync", .serialized)
struct LoopbackSyncTests {
    @Test("a document created on one client is found on another, and edits flow both ways")
    func createFindEditBothWays() async throws {
        let server = try await LoopbackServer.start()
        let alice = loopbackClient(server), bob = loopbackClient(server)
        let created = try await alice.create()
        try created.document.put(obj: .ROOT, key: "title", value: .String("from alice"))
        try await created.waitUntilSynced()

        let found = try await bob.find(created.url)
        #expect(rootString(found.document, "title") == "from alice")
        let aliceChanges = created.changes()
        try found.document.put(obj: .ROOT, key: "reply", value: .String("from bob"))
        var iterator = aliceChanges.makeAsyncIterator()
        let change = await iterator.next()
        #expect(change?.origin == .remote)
        #expect(rootString(created.document, "reply") == "from bob")
        #expect(created.document.heads() == found.document.heads())
        await alice.close()
        await bob.close()
        await server.stop()
    }

    @Test("an empty created document exists for other peers at once, as automerge-repo's create makes it")
    func emptyCreateIsFindable() async throws {
        let server = try await LoopbackServer.start()
        let alice = loopbackClient(server), bob = loopbackClient(server)
        let created = try await alice.create()
        #expect(created.document.heads().count == 1)
        try await created.waitUntilSynced()
        let found = try await bob.find(created.id)
        #expect(found.document.heads() == created.document.heads())
        await alice.close()
        await bob.close()
        await server.stop()
    }

    @Test("finding a document nobody has fails with documentUnavailable, and the server answers doc-unavailable")
    func unknownDocumentIsUnavailable() async throws {
        let server = try await LoopbackServer.start()
        let client = loopbackClient(server)
        let missing = DocumentId.random()
        await #expect(throws: RepoError.documentUnavailable(missing)) { try await client.find(missing) }
        await client.close()
        await server.stop()
    }

    @Test("many clients editing one document at once converge, and the server stores the merge")
    func manyClientsConverge() async throws {
        let server = try await LoopbackServer.start()
        let clients = (0..<12).map { _ in loopbackClient(server) }
        let origin = try await clients[0].create()
        try await origin.waitUntilSynced()
        var handles = [origin]
        for client in clients.dropFirst() { handles.append(try await client.find(origin.id)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, handle) in handles.enumerated() {
                group.addTask {
                    for round in 0..<5 {
                        try handle.document.put(obj: .ROOT, key: "client\(index)", value: .Int(Int64(round)))
                        try await Task.sleep(for: .milliseconds(5))
                    }
                }
            }
            try await group.waitForAll()
        }
        await eventually("every client has every edit") {
            let heads = handles.map { $0.document.heads() }
            return Set(heads).count == 1 && handles[0].document.keys(obj: .ROOT).count == handles.count
        }
        for handle in handles {
            for index in handles.indices {
                #expect(try handle.document.get(obj: .ROOT, key: "client\(index)") == .Scalar(.Int(4)))
            }
        }
        await eventually("the server stores the merged heads") {
            (try? server.storedDocument(origin.id))?.heads() == handles[0].document.heads()
        }
        for client in clients { await client.close() }
        await server.stop()
    }

    @Test("a server restarted mid-sync keeps what it acknowledged, and clients reconnect and finish syncing")
    func serverRestart() async throws {
        let server = try await LoopbackServer.start()
        let alice = loopbackClient(server)
        let handle = try await alice.create()
        try handle.document.put(obj: .ROOT, key: "before", value: .String("restart"))
        try await handle.waitUntilSynced()
        let states = await alice.connectionStates()

        await server.stop()
        var iterator = states.makeAsyncIterator()
        while let state = await iterator.next() {
            if case .disconnected = state { break }
        }
        // Edited while the server is down: it must arrive after the restart.
        try handle.document.put(obj: .ROOT, key: "during", value: .String("outage"))
        #expect(try server.storedDocument(handle.id).map { rootString($0, "before") } == "restart")

        try await server.restart()
        try await alice.waitUntilConnected()
        try await handle.waitUntilSynced()
        let bob = loopbackClient(server)
        let found = try await bob.find(handle.id)
        await eventually("bob has the edit made during the outage") { rootString(found.document, "during") == "outage" }
        #expect(rootString(found.document, "before") == "restart")
        await alice.close()
        await bob.close()
        await server.stop()
    }

    @Test("a client with storage that disconnects and comes back has its documents offline and gets what it missed")
    func clientComesBack() async throws {
        let server = try await LoopbackServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("repo-client-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = loopbackClient(server, storage: try temporaryDatastore(folder))
        let handle = try await first.create()
        try handle.document.put(obj: .ROOT, key: "mine", value: .String("offline copy"))
        try await handle.waitUntilSynced()
        await first.close()
        // The session with the server is kept under the server's storage id, for the next run to resume from.
        let saved = try first.storage?.savedSyncState(
            peer: "automerge-repo:storage:\(server.server.datastore.replicaId)", docId: handle.id.description)
        #expect(saved?.sharedHeads == handle.document.heads())

        let other = loopbackClient(server)
        let shared = try await other.find(handle.id)
        try shared.document.put(obj: .ROOT, key: "theirs", value: .String("while away"))
        try await shared.waitUntilSynced()

        let again = loopbackClient(server, storage: try temporaryDatastore(folder))
        let reopened = try await again.find(handle.id, timeout: .seconds(1))
        #expect(rootString(reopened.document, "mine") == "offline copy")  // from storage, before any sync
        await eventually("the returning client gets the edit it missed") {
            rootString(reopened.document, "theirs") == "while away"
        }
        await eventually("the returning client stores it") {
            (try? again.storage?.storedAutomergeDocument(handle.id.description)).flatMap { $0 }
                .map { rootString($0, "theirs") == "while away" } ?? false
        }
        await first.close()
        await other.close()
        await again.close()
        await server.stop()
    }

    @Test("ephemeral messages reach the document's other peers and are never stored")
    func ephemeralMessages() async throws {
        let server = try await LoopbackServer.start()
        let alice = loopbackClient(server), bob = loopbackClient(server)
        let handle = try await alice.create()
        try await handle.waitUntilSynced()
        let found = try await bob.find(handle.id)
        let messages = found.ephemeralMessages()
        let presence: [UInt8] = [0xA1, 0x61, 0x78, 0x01]  // CBOR {"x": 1}
        await handle.broadcast(presence)
        var iterator = messages.makeAsyncIterator()
        let received = await iterator.next()
        #expect(received?.data == presence)
        #expect(received?.senderId == alice.peerId)
        #expect(try server.storedDocument(handle.id)?.heads() == handle.document.heads())
        await alice.close()
        await bob.close()
        await server.stop()
    }

    @Test("the connection-state stream goes connecting, connected, then disconnected when the server goes away")
    func connectionStates() async throws {
        let server = try await LoopbackServer.start()
        let client = loopbackClient(server)
        try await client.waitUntilConnected()
        let states = await client.connectionStates()
        var iterator = states.makeAsyncIterator()
        let first = await iterator.next()
        guard case .connected(let peer)? = first else {
            Issue.record("expected connected, got \(String(describing: first))")
            return
        }
        #expect(peer == server.server.peerId)
        await server.stop()
        let next = await iterator.next()
        guard case .disconnected? = next else {
            Issue.record("expected disconnected, got \(String(describing: next))")
            return
        }
        await client.close()
    }
}

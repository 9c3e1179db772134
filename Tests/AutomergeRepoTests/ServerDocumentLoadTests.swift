@_spi(Storage) import Automerge
import AutomergeConformance
import AutomergeStore
import AutomergeTestSupport
import Foundation
import NIOPosix
import Testing
@testable import AutomergeRepo

/// What one peer's messages may cost the server's documents: a message
/// that takes long to apply, changes ahead of a document's history, the
/// same whole document asked for again and again, a new storage id on every
/// join, large ephemeral messages for peers that do not read.
@Suite("Sync server under load: documents", .serialized)
struct ServerDocumentLoadTests {
    @Test("a sync message of thousands of one-change actors holds neither other clients nor their keep-alive")
    func manyActorMessage() async throws {
        let server = try await LoopbackServer.start(RepoServerConfiguration(keepAliveInterval: .seconds(1)))
        let idle = loopbackClient(server)
        try await idle.waitUntilConnected()
        let changes = try await blockingWork { try HostileInputs.family(named: "concurrent-actors")!.crafted(1 << 13) }
        let attacker = try await joinedRawPeer(server, as: PeerId("many-actors"), receiveWindow: 1 << 20)
        let replied = Task {
            _ = try await attacker.readSlowly(bytesPerSecond: 64 << 20, timeout: .seconds(300)) { messages in
                messages.contains { if case .sync? = try? RepoMessage(decoding: $0) { true } else { false } }
            }
            return ContinuousClock.now
        }
        let message = SyncMessage(heads: [], have: [SyncHave()], changes: [changes]).encode()
        try await attacker.sendBinaryFrame(RepoMessage.sync(senderId: PeerId("many-actors"), targetId: server.server.peerId,
                                                            documentId: DocumentId.random(), data: Array(message)).encoded())
        try await expectHonestClientServed(server)
        _ = try await replied.value
        #expect(await idle.connectionState == .connected(server: server.server.peerId), "an idle client's keep-alive failed")
        await idle.close()
        await server.stop()
    }

    @Test("a document whose work is held up holds up no other document")
    func documentWorkApart() async throws {
        let server = try await LoopbackServer.start()
        let held = DispatchSemaphore(value: 0)
        let holding = Task { try await server.server.hub.lanes.run(DocumentId.random()) { _ = held.wait(timeout: .now() + 60) } }
        try await Task.sleep(for: .milliseconds(100))
        try await expectHonestClientServed(server)
        held.signal()
        try await holding.value
        await server.stop()
    }

    @Test("changes ahead of a document's history are held for their peer only: never stored, dropped when it leaves, refused past the limits")
    func changesAheadOfHistory() async throws {
        let limits = HeldChangeLimits(changesPerDocument: 100, bytesPerDocument: 1 << 20, bytesInAll: 2 << 20)
        let server = try await LoopbackServer.start(RepoServerConfiguration(heldChangeLimits: limits))
        let document = try await storedDocument(on: server, size: 16)
        // Within the limits: held, and gone with the peer.
        let early = try await joinedRawPeer(server, as: PeerId("ahead"), receiveWindow: 1 << 20)
        try await early.sendBinaryFrame(syncMessage(from: PeerId("ahead"), to: server, document,
                                                    changes: changesMissingTheirDependency(count: 3, size: 200 << 10)))
        try await Task.sleep(for: .milliseconds(500))
        try await early.sendBinaryFrame(RepoMessage.leave(senderId: PeerId("ahead")).encoded())
        #expect(try await early.waitForServerToClose(timeout: .seconds(30)))
        // The owner's next edit (larger than the stored snapshot, so the document is saved whole).
        let owner = loopbackClient(server)
        let handle = try await owner.find(document)
        try handle.document.put(obj: .ROOT, key: "edit", value: .Bytes(Data(randomBytes(4096))))
        try await handle.waitUntilSynced(timeout: .seconds(20))
        await owner.close()
        let stored = try #require(try server.storedDocument(document))
        #expect(stored.queuedChanges.count == 0)
        #expect(stored.save().count < 64 << 10, "the stored document holds \(stored.save().count) bytes")
        // Past the limits: refused, with a reason.
        let flooder = try await joinedRawPeer(server, as: PeerId("flood"), receiveWindow: 1 << 20)
        for _ in 0..<2 {
            try? await flooder.sendBinaryFrame(syncMessage(from: PeerId("flood"), to: server, document,
                                                           changes: changesMissingTheirDependency(count: 4, size: 200 << 10)))
        }
        let (frames, closed) = try await flooder.framesUntilServerCloses(timeout: .seconds(30))
        #expect(closed)
        #expect(errorTexts(in: frames).contains { $0.contains("dependencies") }, "errors: \(errorTexts(in: frames))")
        try await expectHonestClientServed(server)
        await server.stop()
    }

    @Test("a peer asking for the same whole document again and again waits for its reply allowance; others do not")
    func repeatedWholeDocument() async throws {
        let server = try await LoopbackServer.start(RepoServerConfiguration(replyBytesPerSecond: 1 << 20,
                                                                            replyBurstBytes: 512 << 10))
        let took = try await wholeDocumentAskedAgainAndAgain(on: server, size: 512 << 10, requests: 12)
        // 12 replies of 512 KiB: 6 MiB, of which 0.5 at once and the rest at 1 MiB a second.
        #expect(took >= .seconds(4), "the replies came in \(took)")
        await server.stop()
    }

    @Test("a peer asking for the same whole document again and again gets it once an interval, whatever its reply allowance")
    func wholeDocumentOnceAnInterval() async throws {
        // The default reply allowance (128 MiB at once) would let every one of these go at once.
        let server = try await LoopbackServer.start(RepoServerConfiguration(wholeDocumentInterval: .milliseconds(500)))
        let took = try await wholeDocumentAskedAgainAndAgain(on: server, size: 64 << 10, requests: 6)
        // The first two at once, then one each half second.
        #expect(took >= .seconds(2), "the replies came in \(took)")
        await server.stop()
    }

    /// Stores a document of `size` bytes, has a peer that holds nothing of it
    /// ask for it `requests` times at once, checks that another client is
    /// served meanwhile and that every request is answered, and returns how
    /// long the answers took.
    private func wholeDocumentAskedAgainAndAgain(on server: LoopbackServer, size: Int, requests: Int) async throws
        -> Duration
    {
        let document = try await storedDocument(on: server, size: size)
        let asker = try await joinedRawPeer(server, as: PeerId("asker"), receiveWindow: 1 << 20)
        let start = ContinuousClock.now
        try await asker.sendBinaryFrames((0..<requests).map { _ in
            RepoMessage.sync(senderId: PeerId("asker"), targetId: server.server.peerId, documentId: document,
                             data: syncMessageFromNothing).encoded()
        })
        let reading = Task {
            try await asker.readSlowly(bytesPerSecond: 64 << 20, timeout: .seconds(60)) { messages in
                messages.filter { $0.count > size }.count >= requests
            }
        }
        try await expectHonestClientServed(server)
        let (messages, _) = try await reading.value
        #expect(messages.filter { $0.count > size }.count == requests, "every request is still answered")
        return ContinuousClock.now - start
    }

    @Test("a peer whose messages keep the documents busy has its next work run as bulk work, apart from others' edits")
    func busyPeerBecomesBulk() async throws {
        let bulkPool = NIOThreadPool(numberOfThreads: 1)
        bulkPool.start()
        let server = try await LoopbackServer.start(RepoServerConfiguration(bulkConnectionShare: 0.01), bulkPool: bulkPool)
        let document = try await storedDocument(on: server, size: 16)
        // The bulk thread held: bulk work waits, regular work goes on.
        let held = DispatchSemaphore(value: 0)
        bulkPool.submit { _ in _ = held.wait(timeout: .now() + 120) }
        let asker = try await joinedRawPeer(server, as: PeerId("busy"), receiveWindow: 1 << 20)
        // Thirty changes of 64 KiB in a row, each in a message of its own (below the bulk size, with the
        // sender's heads): only the meter can tell. Once its work passes 1% of a core, the rest is bulk work.
        let changes = 30
        try await asker.sendBinaryFrames(try changesOfTheirOwn(changes, size: 64 << 10).map { data in
            RepoMessage.sync(senderId: PeerId("busy"), targetId: server.server.peerId, documentId: document, data: data)
                .encoded()
        })
        try await expectHonestClientServed(server)
        let stored: @Sendable () -> Int = {
            let keys = (try? server.storedDocument(document))?.keys(obj: .ROOT) ?? []
            return keys.filter { $0.hasPrefix("busy-") }.count
        }
        // While the bulk thread is held the count stops short of all of them (no new one for a second).
        var early = stored()
        for _ in 0..<60 {
            try await Task.sleep(for: .seconds(1))
            let now = stored()
            if now == early { break }
            early = now
        }
        #expect(early < changes, "all the busy peer's work ran beside the small edits")
        held.signal()
        await eventually("every change is still stored", timeout: .seconds(120)) { stored() == changes }
        await server.stop()
        try await bulkPool.shutdownGracefully()
    }

    /// Sync messages each carrying one change of `size` random bytes, of a
    /// history that depends on nothing of the server's (concurrent with all of it).
    private func changesOfTheirOwn(_ count: Int, size: Int) throws -> [[UInt8]] {
        let editor = Document()
        return try (0..<count).map { index in
            let before = editor.heads()
            try editor.put(obj: .ROOT, key: "busy-\(index)", value: .Bytes(Data(randomBytes(size))))
            let change = try editor.encodeChangesSince(heads: before)
            return SyncMessage(heads: Array(editor.heads()), changes: [Array(change)]).encoded()
        }
    }

    @Test("a request for a large document from a peer that holds nothing is bulk work from its first message; edits go on")
    func wholeLargeDocumentIsBulk() async throws {
        let (sentEarly, sentLate) = try await requestWhileBulkIsHeld(documentSize: 512 << 10)
        #expect(!sentEarly, "a whole large document was sent from a regular lane")
        #expect(sentEarly || sentLate, "the request is still answered")
    }

    @Test("a request for a small document is answered at once, whatever bulk work is waiting")
    func smallDocumentIsRegular() async throws {
        let (sentEarly, _) = try await requestWhileBulkIsHeld(documentSize: 16)
        #expect(sentEarly, "a newcomer's fetch of a small document waited behind others' bulk work")
    }

    /// A newcomer requests a stored document of `documentSize` bytes while
    /// the only bulk thread is held: whether the document came within a
    /// second, and whether it came once the thread was let go.
    private func requestWhileBulkIsHeld(documentSize: Int) async throws -> (early: Bool, late: Bool) {
        let bulkPool = NIOThreadPool(numberOfThreads: 1)
        bulkPool.start()
        let server = try await LoopbackServer.start(bulkPool: bulkPool)
        let document = try await storedDocument(on: server, size: documentSize)
        let held = DispatchSemaphore(value: 0)
        bulkPool.submit { _ in _ = held.wait(timeout: .now() + 120) }
        let asker = try await joinedRawPeer(server, as: PeerId("newcomer"), receiveWindow: 1 << 20)
        try await asker.sendBinaryFrame(RepoMessage.request(senderId: PeerId("newcomer"), targetId: server.server.peerId,
                                                            documentId: document, data: syncMessageFromNothing).encoded())
        try await expectHonestClientServed(server)
        let isDocument: @Sendable ([[UInt8]]) -> Bool = { messages in
            messages.contains { message in
                guard case .sync(_, _, _, let data)? = try? RepoMessage(decoding: message) else { return false }
                return data.count >= documentSize
            }
        }
        let early = isDocument(try await asker.readSlowly(bytesPerSecond: 64 << 20, timeout: .seconds(1), until: isDocument).messages)
        held.signal()
        var late = early
        if !early {
            late = isDocument(try await asker.readSlowly(bytesPerSecond: 64 << 20, timeout: .seconds(120), until: isDocument).messages)
        }
        await server.stop()
        try await bulkPool.shutdownGracefully()
        return (early, late)
    }

    @Test("a new storage id on every join keeps at most the configured number of saved sync states per document")
    func storageIdPerJoin() async throws {
        let server = try await LoopbackServer.start(RepoServerConfiguration(maximumSyncStatesPerDocument: 5))
        let document = try await storedDocument(on: server, size: 16)
        for index in 0..<12 {
            let peer = PeerId("storage-peer-\(index)")
            let raw = try await joinedRawPeer(server, as: peer, metadata: PeerMetadata(storageId: StorageId("storage-\(index)")),
                                              receiveWindow: 1 << 20)
            try await raw.sendBinaryFrame(RepoMessage.request(senderId: peer, targetId: server.server.peerId,
                                                              documentId: document, data: syncMessageFromNothing).encoded())
            _ = try await raw.readSlowly(bytesPerSecond: 64 << 20, timeout: .seconds(30)) { messages in
                messages.contains { if case .sync? = try? RepoMessage(decoding: $0) { true } else { false } }
            }
        }
        await eventually("the last peer's sync state is saved", timeout: .seconds(30)) {
            (try? server.server.datastore.savedSyncState(peer: "automerge-repo:storage:storage-11",
                                                        docId: document.description)) != nil
        }
        let saved = try (0..<12).map { index in
            try server.server.datastore.savedSyncState(peer: "automerge-repo:storage:storage-\(index)",
                                                        docId: document.description) != nil
        }
        #expect(saved.filter { $0 }.count == 5, "saved: \(saved)")
        #expect(saved.suffix(5).allSatisfy { $0 }, "the most recent peers keep theirs: \(saved)")
        try await expectHonestClientServed(server)
        await server.stop()
    }

    @Test("ephemeral messages past their size are dropped, and none queue for followers that do not read")
    func ephemeralFlood() async throws {
        // Pings a minute apart: followers that do not read do not answer them either, and stay for the test.
        let server = try await LoopbackServer.start(RepoServerConfiguration(keepAliveInterval: .seconds(60)))
        let document = try await storedDocument(on: server, size: 16)
        var followers: [RawSocketPeer] = []
        for index in 0..<20 {
            let peer = PeerId("follower-\(index)")
            let follower = try await joinedRawPeer(server, as: peer)
            try await follower.sendBinaryFrame(RepoMessage.request(senderId: peer, targetId: server.server.peerId,
                                                                   documentId: document, data: syncMessageFromNothing).encoded())
            followers.append(follower)
        }
        let sender = try await joinedRawPeer(server, as: PeerId("shouter"), receiveWindow: 1 << 20)
        try await sender.sendBinaryFrame(RepoMessage.request(senderId: PeerId("shouter"), targetId: server.server.peerId,
                                                             documentId: document, data: syncMessageFromNothing).encoded())
        let large = [UInt8](repeating: 0x5A, count: 1 << 20)
        let small = [UInt8](repeating: 0x5A, count: 100 << 10)
        var frames: [[UInt8]] = (1...2).map { count in
            RepoMessage.ephemeral(senderId: PeerId("shouter"), targetId: server.server.peerId, count: UInt64(count),
                                  sessionId: "s", documentId: document, data: large).encoded()
        }
        // Within the size, but more than followers that do not read may queue.
        frames += (3...20).map { count in
            RepoMessage.ephemeral(senderId: PeerId("shouter"), targetId: server.server.peerId, count: UInt64(count),
                                  sessionId: "s", documentId: document, data: small).encoded()
        }
        // Then a request, answered once every message before it was handled.
        frames.append(RepoMessage.request(senderId: PeerId("shouter"), targetId: server.server.peerId,
                                          documentId: try await storedDocument(on: server, size: 16),
                                          data: syncMessageFromNothing).encoded())
        let answered = Task {
            try await sender.readSlowly(bytesPerSecond: 64 << 20, timeout: .seconds(120)) { messages in
                messages.filter { if case .sync? = try? RepoMessage(decoding: $0) { true } else { false } }.count >= 2
            }
        }
        try await sender.sendBinaryFrames(frames)
        try await expectHonestClientServed(server)
        #expect(try await answered.value.closed == false)
        // Before: 20 followers x (2 MiB + 1.8 MiB) queued; now at most the backlog and one message each.
        let queued = server.server.outboundBudget.peak
        #expect(queued < 20 * (1 << 20 + 256 << 10) + (2 << 20), "replies queued at once: \(queued >> 20) MiB")
        _ = followers
        await server.stop()
    }

    @Test("one connection's ephemeral messages are relayed up to its allowance; past it they are dropped")
    func ephemeralRate() async throws {
        let configuration = RepoServerConfiguration(ephemeralBytesPerSecond: 1 << 10, ephemeralBurstBytes: 200 << 10)
        let server = try await LoopbackServer.start(configuration)
        let document = try await storedDocument(on: server, size: 16)
        var peers: [RawSocketPeer] = []
        for name in ["listener", "shouter"] {
            let peer = try await joinedRawPeer(server, as: PeerId(name), receiveWindow: 1 << 20)
            try await peer.sendBinaryFrame(RepoMessage.request(senderId: PeerId(name), targetId: server.server.peerId,
                                                               documentId: document, data: syncMessageFromNothing).encoded())
            peers.append(peer)
        }
        let listener = peers[0], shouter = peers[1]
        let heard = Task {
            try await listener.readSlowly(bytesPerSecond: 64 << 20, timeout: .seconds(5)) { _ in false }.messages
        }
        let data = [UInt8](repeating: 0x5A, count: 50 << 10)
        try await shouter.sendBinaryFrames((1...20).map { count in
            RepoMessage.ephemeral(senderId: PeerId("shouter"), targetId: server.server.peerId, count: UInt64(count),
                                  sessionId: "s", documentId: document, data: data).encoded()
        })
        let relayed = try await heard.value.filter { if case .ephemeral? = try? RepoMessage(decoding: $0) { true } else { false } }
        // 200 KiB at once holds four of 50 KiB; the refill (1 KiB a second) adds none in the test's time.
        #expect(relayed.count == 4, "relayed \(relayed.count) of 20")
        try await expectHonestClientServed(server)
        await server.stop()
    }

    private func syncMessage(from peer: PeerId, to server: LoopbackServer, _ document: DocumentId, changes: [[UInt8]])
        -> [UInt8]
    {
        let message = SyncMessage(heads: [], have: [SyncHave()], changes: changes).encode()
        return RepoMessage.sync(senderId: peer, targetId: server.server.peerId, documentId: document,
                                data: Array(message)).encoded()
    }

    /// `count` changes of about `size` bytes each, each depending on a change that is not sent.
    private func changesMissingTheirDependency(count: Int, size: Int) throws -> [[UInt8]] {
        try (0..<count).map { _ in
            let source = Document()
            try source.put(obj: .ROOT, key: "first", value: .Int(1))
            _ = source.encodeNewChanges()
            try source.put(obj: .ROOT, key: "second", value: .Bytes(Data(randomBytes(size))))
            return [UInt8](source.encodeNewChanges())
        }
    }

    private func errorTexts(in frames: [WebSocketWireFrame]) -> [String] {
        frames.filter { $0.opcode == WebSocketWireFrame.binary }.compactMap { frame in
            if case .error(let text, _, _)? = try? RepoMessage(decoding: frame.payload) { return text }
            return nil
        }
    }
}

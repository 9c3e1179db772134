import Automerge
import AutomergeRepo
import Foundation
import Testing
@testable import AutomergeRepoProtocol

/// What the server does with a peer that breaks the protocol: it answers
/// `error` (where a message can still be written) and closes that
/// connection, drops what it does not know as automerge-repo does, and keeps
/// serving everyone else.
@Suite("automerge-repo loopback: hostile peers", .serialized)
struct LoopbackHostilePeerTests {
    /// A client still syncs through `server`: the server survived.
    func expectServerStillServes(_ server: LoopbackServer) async throws {
        let client = loopbackClient(server)
        let handle = try await client.create()
        try await handle.waitUntilSynced(timeout: .seconds(10))
        await client.close()
    }

    func expectRefused(_ exchange: RawPeer.Exchange, mentioning fragment: String,
                       sourceLocation: SourceLocation = #_sourceLocation)
    {
        #expect(exchange.closedByServer, sourceLocation: sourceLocation)
        let errors = exchange.received.compactMap { message -> String? in
            if case .error(let text, _, _) = message { return text }
            return nil
        }
        #expect(errors.count == 1 && errors[0].contains(fragment), "errors: \(errors)", sourceLocation: sourceLocation)
    }

    @Test("bytes that are not CBOR get an error and a close")
    func malformedBytes() async throws {
        let server = try await LoopbackServer.start()
        let exchange = try await RawPeer.exchange(server, sending: [.binary([0xFF, 0x00, 0x13, 0x37])])
        expectRefused(exchange, mentioning: "malformed message")
        try await expectServerStillServes(server)
        await server.stop()
    }

    @Test("a text frame gets an error and a close")
    func textFrame() async throws {
        let server = try await LoopbackServer.start()
        let exchange = try await RawPeer.exchange(server, sending: [.text("{\"type\":\"join\"}")])
        expectRefused(exchange, mentioning: "malformed message")
        await server.stop()
    }

    @Test("a message larger than the limit closes the connection before it is read")
    func oversizedFrame() async throws {
        let server = try await LoopbackServer.start(RepoServerConfiguration(maximumMessageSize: 4096))
        let big = RepoMessage.sync(senderId: RawPeer.peerId, targetId: "x", documentId: DocumentId.random(),
                                   data: [UInt8](repeating: 7, count: 100_000)).encoded()
        let exchange = try await RawPeer.exchange(server, sending: [RawPeer.join, .binary(big)])
        #expect(exchange.closedByServer)
        try await expectServerStillServes(server)
        await server.stop()
    }

    @Test("anything before join is refused")
    func messageBeforeJoin() async throws {
        let server = try await LoopbackServer.start()
        let early = RepoMessage.request(senderId: RawPeer.peerId, targetId: "x", documentId: DocumentId.random(),
                                        data: [0x42, 0, 0, 0, 0])
        let exchange = try await RawPeer.exchange(server, sending: [.binary(early.encoded())])
        expectRefused(exchange, mentioning: "expected a join message")
        await server.stop()
    }

    @Test("a join offering only other protocol versions is refused")
    func unsupportedVersion() async throws {
        let server = try await LoopbackServer.start()
        let join = RepoMessage.join(senderId: RawPeer.peerId, supportedProtocolVersions: ["2"], peerMetadata: nil)
        let exchange = try await RawPeer.exchange(server, sending: [.binary(join.encoded())])
        expectRefused(exchange, mentioning: "unsupported protocol versions")
        await server.stop()
    }

    @Test("a join without versions is read as version 1, as automerge-repo's server reads it")
    func joinWithoutVersions() async throws {
        let server = try await LoopbackServer.start()
        let join = RepoMessage.join(senderId: RawPeer.peerId, supportedProtocolVersions: nil, peerMetadata: nil)
        let exchange = try await RawPeer.exchange(server, sending: [.binary(join.encoded())]) { !$0.isEmpty }
        guard case .peer(let sender, "1", RawPeer.peerId, let metadata)? = exchange.received.first else {
            Issue.record("expected peer, got \(exchange.received)")
            return
        }
        #expect(sender == server.server.peerId)
        #expect(metadata?.storageId != nil && metadata?.isEphemeral == false)
        #expect(!exchange.closedByServer)
        await server.stop()
    }

    @Test("unknown message types are ignored and the connection goes on")
    func unknownTypesIgnored() async throws {
        let server = try await LoopbackServer.start()
        let serverPeer = server.server.peerId
        let missing = DocumentId.random()
        let unknown = CBORValue.textMap(["type": text("some-future-message"), "senderId": text(RawPeer.peerId.rawValue)])
            .encoded()
        let request = RepoMessage.request(senderId: RawPeer.peerId, targetId: serverPeer, documentId: missing,
                                          data: Array(Document().generateSyncMessage(state: SyncState())!))
        let unavailable = RepoMessage.docUnavailable(senderId: serverPeer, targetId: RawPeer.peerId, documentId: missing)
        let exchange = try await RawPeer.exchange(server, sending: [RawPeer.join, .binary(unknown), .binary(request.encoded())])
        { $0.contains(unavailable) }
        #expect(!exchange.closedByServer)
        #expect(exchange.received.contains(unavailable))
        await server.stop()
    }

    @Test("a sync message whose data is not a sync message gets an error, and nothing is stored")
    func corruptSyncData() async throws {
        let server = try await LoopbackServer.start()
        let document = DocumentId.random()
        let sync = RepoMessage.sync(senderId: RawPeer.peerId, targetId: server.server.peerId, documentId: document,
                                    data: [0x42, 0xFF, 0xFF, 0xFF])
        let exchange = try await RawPeer.exchange(server, sending: [RawPeer.join, .binary(sync.encoded())])
        expectRefused(exchange, mentioning: "document \(document)")
        #expect(try server.storedDocument(document) == nil)
        try await expectServerStillServes(server)
        await server.stop()
    }

    @Test("a connection asking for more documents than allowed is refused")
    func documentLimit() async throws {
        let server = try await LoopbackServer.start(RepoServerConfiguration(maximumDocumentsPerConnection: 3))
        let emptySync = Array(Document().generateSyncMessage(state: SyncState())!)
        let requests = (0..<5).map { _ in
            RawPeer.Frame.binary(RepoMessage.request(senderId: RawPeer.peerId, targetId: server.server.peerId,
                                                     documentId: DocumentId.random(), data: emptySync).encoded())
        }
        let exchange = try await RawPeer.exchange(server, sending: [RawPeer.join] + requests)
        expectRefused(exchange, mentioning: "more than 3 documents")
        await server.stop()
    }
}

/// The server's bounds on peers that stop taking part: one that does not
/// answer pings, one that does not read.
@Suite("automerge-repo loopback: keep-alive and slow readers", .serialized)
struct LoopbackKeepAliveTests {
    @Test("a peer that never answers the server's pings is disconnected after the next ping")
    func unansweredPings() async throws {
        let server = try await LoopbackServer.start(RepoServerConfiguration(keepAliveInterval: .seconds(1)))
        let silent = try await RawSocketPeer.open(port: server.port)
        try await silent.sendBinaryFrame(RepoMessage.join(senderId: RawPeer.peerId).encoded())
        #expect(try await silent.waitForServerToClose(timeout: .seconds(10)))
        // A peer that answers each ping stays. It answers from a thread of its own: a RepoClient answers
        // from Swift's cooperative pool, which the rest of the suite can keep busy for longer than two pings.
        let answering = try await joinedRawPeer(server, as: PeerId("answers-pings"))
        let (_, closed) = try await answering.readSlowly(bytesPerSecond: 1 << 20, timeout: .seconds(4)) { _ in false }
        #expect(!closed, "the server closed a peer that answers its pings")
        await server.stop()
    }

    @Test("a peer that sends requests and never reads is disconnected once its replies pass the queue bound")
    func slowReader() async throws {
        // Pings every minute: the reader never answers them, and only the queue bound may close it here.
        let bound = 256 << 10
        let server = try await LoopbackServer.start(RepoServerConfiguration(maximumQueuedBytes: bound,
                                                                            keepAliveInterval: .seconds(60)))
        let writer = loopbackClient(server)
        var documents: [DocumentId] = []
        // Random bytes: repeated ones would compress to nothing in the change chunk.
        var generator = SystemRandomNumberGenerator()
        let filler = Data((0..<(512 << 10)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        for _ in 0..<24 {  // 12 MiB of replies: past the socket buffers and the bound
            let handle = try await writer.create()
            try handle.document.put(obj: .ROOT, key: "filler", value: .Bytes(filler))
            try await handle.waitUntilSynced()
            documents.append(handle.id)
        }
        let reader = try await RawSocketPeer.open(port: server.port)
        try await reader.sendBinaryFrame(RepoMessage.join(senderId: RawPeer.peerId).encoded())
        let emptySync = Array(Document().generateSyncMessage(state: SyncState())!)
        try await reader.sendBinaryFrames(documents.map {
            RepoMessage.request(senderId: RawPeer.peerId, targetId: server.server.peerId, documentId: $0, data: emptySync).encoded()
        })
        try await Task.sleep(for: .seconds(2))  // the replies pile up unread
        #expect(try await reader.waitForServerToClose(timeout: .seconds(5)))
        try await expectServerStillServes(server)
        await writer.close()
        await server.stop()
    }

    func expectServerStillServes(_ server: LoopbackServer) async throws {
        try await LoopbackHostilePeerTests().expectServerStillServes(server)
    }
}

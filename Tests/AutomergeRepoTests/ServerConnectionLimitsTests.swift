import Automerge
import AutomergeRepo
import AutomergeTestSupport
import Foundation
import Testing
@testable import AutomergeRepo

/// What one peer may do to the server's connections: hold sockets open
/// without joining, leave a message unfinished, read slowly, take another
/// peer's id. Each attack leaves the server serving everyone else.
@Suite("Sync server under load: connections", .serialized)
struct ServerConnectionLimitsTests {
    @Test("sockets that send half an HTTP header, or nothing, are closed at the handshake deadline; a shutdown does not wait for them")
    func halfOpenSockets() async throws {
        let server = try await LoopbackServer.start(RepoServerConfiguration(handshakeTimeout: .seconds(1)))
        let sockets = try await blockingWork {
            try (0..<300).map { index -> LoopbackSocket in
                let socket = try LoopbackSocket.connect(port: server.port)
                if index.isMultiple(of: 2) { try socket.send(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgr".utf8)) }
                return socket
            }
        }
        try await expectHonestClientServed(server)
        let allClosed = try await blockingWork { () -> Bool in
            sockets.allSatisfy { socket in
                let deadline = ContinuousClock.now + .seconds(6)
                while ContinuousClock.now < deadline {
                    switch socket.receive(maximum: 4096, timeout: .milliseconds(100)) {
                    case .end?, .reset?: return true
                    default: continue
                    }
                }
                return false
            }
        }
        #expect(allClosed, "a socket that never joined was still open after the handshake deadline")
        // A shutdown with half-open sockets (they stay for 60 s unless closed) finishes promptly.
        let slow = try await LoopbackServer.start(RepoServerConfiguration(handshakeTimeout: .seconds(60)))
        let lingering = try await blockingWork { try (0..<50).map { _ in try LoopbackSocket.connect(port: slow.port) } }
        try await Task.sleep(for: .milliseconds(200))
        let start = ContinuousClock.now
        await slow.stop()
        #expect(ContinuousClock.now - start < .seconds(5), "the shutdown waited for sockets that never joined")
        _ = lingering
        await server.stop()
    }

    @Test("connections past the caps, in all and per address, are closed as they open")
    func connectionCaps() async throws {
        let server = try await LoopbackServer.start(RepoServerConfiguration(maximumConnectionsPerAddress: 10,
                                                                            handshakeTimeout: .seconds(30)))
        #expect(try await closedAtOnce(opening: 14, on: server) == 4)
        // Once they go, the address may connect again.
        try await Task.sleep(for: .milliseconds(300))
        try await expectHonestClientServed(server)
        await server.stop()
        let small = try await LoopbackServer.start(RepoServerConfiguration(maximumConnections: 6, handshakeTimeout: .seconds(30)))
        #expect(try await closedAtOnce(opening: 9, on: small) == 3)
        await small.stop()
    }

    /// Opens `count` sockets and says how many the server closed at once; they close when it returns.
    private func closedAtOnce(opening count: Int, on server: LoopbackServer) async throws -> Int {
        let sockets = try await blockingWork { try (0..<count).map { _ in try LoopbackSocket.connect(port: server.port) } }
        return try await blockingWork {
            sockets.filter { socket in
                switch socket.receive(maximum: 16, timeout: .milliseconds(500)) {
                case .end?, .reset?: true
                default: false
                }
            }.count
        }
    }

    @Test("messages left unfinished are closed by the message deadline and the server-wide budget; memory stays within it")
    func unfinishedFragments() async throws {
        let budget = 8 << 20
        // Pings a minute apart: these peers do not answer them, and only the message limits may close them here.
        let server = try await LoopbackServer.start(RepoServerConfiguration(
            keepAliveInterval: .seconds(60), messageTimeout: .seconds(2), maximumInboundBytesPerConnection: 33 << 20,
            maximumInboundBytes: budget))
        // 3 MiB of a message in 64 KiB fragments, never finished, on each of 10 connections.
        let filler = [UInt8](repeating: 0xAB, count: 65536)
        let fragments = (0..<48).flatMap { part in
            WebSocketWireFrame(fin: false, opcode: part == 0 ? WebSocketWireFrame.binary : 0, payload: filler).encoded(masked: true)
        }
        var peers: [RawSocketPeer] = []
        for index in 0..<10 {
            let peer = try await joinedRawPeer(server, as: PeerId("fragments-\(index)"), receiveWindow: 1 << 20)
            try? await peer.send(encoded: fragments)
            peers.append(peer)
        }
        try await expectHonestClientServed(server)
        for peer in peers {
            #expect(try await peer.waitForServerToClose(timeout: .seconds(8)), "a connection holding an unfinished message stayed open")
        }
        // 30 MiB sent; at most the budget held at once, and nothing once they are gone.
        #expect(server.server.inboundBudget.peak <= budget)
        await eventually("every closed connection's bytes are given back", timeout: .seconds(10)) {
            server.server.inboundBudget.inUse == 0
        }
        await server.stop()
    }

    @Test("past its burst a connection's bytes are read no faster than its receive rate, and the peer is still answered")
    func receiveRate() async throws {
        let server = try await LoopbackServer.start(RepoServerConfiguration(
            keepAliveInterval: .seconds(60), receiveBytesPerSecond: 256 << 10, receiveBurstBytes: 256 << 10))
        let peer = try await joinedRawPeer(server)
        // 1.25 MiB that are not a message: the server answers with an error once it has read them all.
        let started = ContinuousClock.now
        try await peer.sendBinaryFrame([UInt8](repeating: 0xFF, count: 5 << 18))
        let (frames, closed) = try await peer.framesUntilServerCloses(timeout: .seconds(60))
        let took = ContinuousClock.now - started
        #expect(closed)
        let errors = frames.filter { $0.opcode == WebSocketWireFrame.binary }.compactMap { try? RepoMessage(decoding: $0.payload) }
        #expect(errors.contains { if case .error(let message, _, _) = $0 { message.contains("malformed") } else { false } })
        // 1 MiB past the burst at 256 KiB a second, 4 s, less the one 64 KiB buffer a read may take past the
        // allowance (unthrottled, a debug build reads them in about a second).
        #expect(took >= .milliseconds(3600), "1.25 MiB read in \(took)")
        try await expectHonestClientServed(server)
        await server.stop()
    }

    @Test("a slow reader fetching a large document is not closed for a ping that waits behind the data")
    func slowHonestReader() async throws {
        let server = try await LoopbackServer.start(RepoServerConfiguration(keepAliveInterval: .seconds(1)))
        let document = try await storedDocument(on: server, size: 512 << 10)
        let reader = try await joinedRawPeer(server, receiveWindow: 16384)
        try await reader.sendBinaryFrame(RepoMessage.request(senderId: RawPeer.peerId, targetId: server.server.peerId,
                                                             documentId: document, data: syncMessageFromNothing).encoded())
        // About 64 KB a second: some 8 seconds for the document, eight pings' time.
        let (messages, closed) = try await reader.readSlowly(bytesPerSecond: 64_000, timeout: .seconds(40)) { messages in
            messages.contains { $0.count > 512 << 10 }
        }
        #expect(!closed, "the server closed a slow reader that answers its pings")
        #expect(messages.contains { $0.count > 512 << 10 }, "the document did not arrive")
        await server.stop()
    }

    @Test("a second join with a connected peer's id closes the older connection with an error, never silently")
    func peerIdTakenOver() async throws {
        let server = try await LoopbackServer.start()
        let victim = try await joinedRawPeer(server, as: PeerId("victim"), receiveWindow: 1 << 20)
        try await Task.sleep(for: .milliseconds(200))
        let usurper = try await joinedRawPeer(server, as: PeerId("victim"), receiveWindow: 1 << 20)
        let (frames, closed) = try await victim.framesUntilServerCloses(timeout: .seconds(30))
        #expect(closed, "the older connection was left open")
        let errors = frames.filter { $0.opcode == WebSocketWireFrame.binary }.compactMap { frame -> String? in
            if case .error(let text, _, _)? = try? RepoMessage(decoding: frame.payload) { return text }
            return nil
        }
        #expect(errors.contains { $0.contains("joined again") }, "frames: \(frames.map(\.opcode)), errors: \(errors)")
        _ = usurper
        try await expectHonestClientServed(server)
        await server.stop()
    }
}

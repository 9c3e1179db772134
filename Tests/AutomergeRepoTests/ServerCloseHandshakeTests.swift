@testable import AutomergeRepo
import Foundation
import Testing

/// How ``RepoServer`` ends a connection a peer ends, seen from a raw socket:
/// it forgets a peer that says `leave` and closes with normal closure, and
/// it answers a peer's close frame with its own before the TCP end.
@Suite("RepoServer: leave and the WebSocket close handshake", .serialized)
struct ServerCloseHandshakeTests {
    @Test("a peer's leave: the server drops the peer and closes with a close frame 1000, no error")
    func leaveDropsThePeer() async throws {
        // Pings a minute apart: only the leave may close this peer, which does not answer them.
        let server = try await LoopbackServer.start(RepoServerConfiguration(keepAliveInterval: .seconds(60)))
        let peer = try await joinedPeer(server)

        try await peer.sendBinaryFrame(RepoMessage.leave(senderId: RawPeer.peerId).encoded())
        // Generous: the whole suite's synchronous tests may keep the cooperative pool busy meanwhile.
        let (frames, closed) = try await peer.framesUntilServerCloses(timeout: .seconds(30))
        #expect(closed)
        #expect(frames.last?.closeCode == 1000, "\(frames)")
        let messages = frames.filter { $0.opcode == WebSocketWireFrame.binary }.map { try? RepoMessage(decoding: $0.payload) }
        #expect(!messages.contains { if case .error? = $0 { true } else { false } }, "\(messages)")
        #expect(await !server.server.hub.isConnected(RawPeer.peerId))
        await server.stop()
    }

    @Test("a peer's close frame is answered with a close frame 1000, then the server ends the connection")
    func closeFrameIsAnswered() async throws {
        let server = try await LoopbackServer.start(RepoServerConfiguration(keepAliveInterval: .seconds(60)))
        let peer = try await joinedPeer(server)

        try await peer.send([.close(code: 1000)])
        let (frames, closed) = try await peer.framesUntilServerCloses(timeout: .seconds(30))
        #expect(closed)
        #expect(frames.last?.closeCode == 1000, "\(frames)")
        // The hub forgets the peer when its session ends, which may come just after the TCP end.
        await eventually("the server forgets the closed peer") { await !server.server.hub.isConnected(RawPeer.peerId) }
        await server.stop()
    }

    /// A raw peer that has joined, once the server holds it.
    private func joinedPeer(_ server: LoopbackServer) async throws -> RawSocketPeer {
        let peer = try await RawSocketPeer.open(port: server.port)
        try await peer.sendBinaryFrame(RepoMessage.join(senderId: RawPeer.peerId).encoded())
        await eventually("the server holds the joined peer") { await server.server.hub.isConnected(RawPeer.peerId) }
        return peer
    }
}

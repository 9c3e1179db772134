@testable import AutomergeRepo
import AutomergeTestSupport
import Foundation
import Testing

/// How ``RepoClient`` ends a connection, seen on the wire through a
/// ``WireTap`` in front of our server: `leave`, then a close frame with
/// normal closure (1000), then nothing more until the server's close frame,
/// and only then the TCP end (a FIN, not a reset). samod logs "Connection
/// reset without closing handshake" for a client that skips any of it.
@Suite("RepoClient: leave and the WebSocket close handshake", .serialized)
struct ClientCloseHandshakeTests {
    @Test("close() sends leave, then a close frame 1000, and keeps the socket open until the server's close frame")
    func closeWaitsForTheServersCloseFrame() async throws {
        let server = try await LoopbackServer.start()
        let (client, closeTook, events) = try await closeThroughTap(server, serverClose: .relay(after: .seconds(1)),
                                                                    closeTimeout: .seconds(10))
        expectLeaveThenCloseFrame(events, from: client.peerId)
        expectClientEndedCleanlyAfterTheServersClose(events)
        #expect(closeTook >= .milliseconds(900), "close() returned before the server's close frame (held back 1 s)")
        #expect(await client.connectionState == .closed)
        await server.stop()
    }

    @Test("a server that never answers the close: close() gives up after closeTimeout and closes the TCP connection")
    func closeIsBoundedWithoutTheServersAnswer() async throws {
        let server = try await LoopbackServer.start()
        let (client, closeTook, events) = try await closeThroughTap(server, serverClose: .withhold,
                                                                    closeTimeout: .milliseconds(500))
        expectLeaveThenCloseFrame(events, from: client.peerId)
        #expect(closeTook >= .milliseconds(450),
                "close() did not wait for the server's close frame: \(events.map(\.summary).joined(separator: ", "))")
        #expect(closeTook < .seconds(8), "close() waited past its closeTimeout (WSClient's own is 15 s)")
        let clientEnded = events.contains(where: \.isClientEnd)
        let serverCloseRelayed = events.contains(where: \.isServerClose)
        #expect(clientEnded, "the client never closed the TCP connection")
        #expect(!serverCloseRelayed, "the tap relayed the server's close frame")
        await server.stop()
    }

    /// Connects a client to `server` through a tap doing `serverClose`,
    /// syncs a new document, closes the client, and returns how long
    /// `close()` took and what the tap saw by the client's end of the connection.
    private func closeThroughTap(_ server: LoopbackServer, serverClose: WireTap.ServerClose, closeTimeout: Duration)
        async throws -> (RepoClient, closeTook: Duration, [WireTap.Event])
    {
        let tap = try WireTap(upstream: server.port, serverClose: serverClose)
        let client = loopbackClient(url: tap.url, closeTimeout: closeTimeout)
        try await client.create().waitUntilSynced(timeout: .seconds(20))
        let closing = ContinuousClock.now
        await client.close()
        let closeTook = ContinuousClock.now - closing
        return (client, closeTook, await tap.eventsOnceClientEnded())
    }

    @Test("repo-create, repo-sync and a failing repo-sync each end with leave and the whole close handshake")
    func commandsEndWithTheCloseHandshake() async throws {
        let server = try await LoopbackServer.start()
        let (created, createEvents) = try await runThroughTap(server, ["repo-create", #"{"title":"closing"}"#])
        #expect(created.status == 0, "\(created.stderr)")
        let url = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let (synced, syncEvents) = try await runThroughTap(server, ["repo-sync", url])
        #expect(synced.status == 0, "\(synced.stderr)")
        let missing = AutomergeURL(documentId: .random()).description
        let (failed, failEvents) = try await runThroughTap(server, ["repo-sync", "--timeout", "10", missing])
        #expect(failed.status == 1 && failed.stderr.contains("does not have"), "\(failed.stderr)")

        for events in [createEvents, syncEvents, failEvents] {
            let leaver = expectLeaveThenCloseFrame(events, from: nil)
            expectClientEndedCleanlyAfterTheServersClose(events)
            guard let leaver else { continue }
            #expect(await !server.server.hub.isConnected(leaver), "the server still holds the peer that left")
        }
        await server.stop()
    }

    /// Runs the CLI with `arguments` (the server URL inserted after the
    /// command) through a tap that holds the server's close frame back 300 ms.
    /// The CLI waits up to 600 s for it: the in-process server answers late
    /// when the rest of the suite keeps the cooperative pool busy (for
    /// minutes on a 2-core machine: 30 s ran out in CI), and the client then
    /// gives up, as it should.
    private func runThroughTap(_ server: LoopbackServer, _ arguments: [String]) async throws
        -> (AutomergeExecutable.Output, [WireTap.Event])
    {
        let tap = try WireTap(upstream: server.port, serverClose: .relay(after: .milliseconds(300)))
        let output = try await AutomergeExecutable.run([arguments[0], tap.url] + arguments.dropFirst() + ["--close-timeout", "600"])
        return (output, await tap.eventsOnceClientEnded())
    }
}

/// Expects the client's last data frame to be `leave` (from `peer`, when
/// given) and its last frame a close frame with normal closure (1000), right
/// after it; returns the sender of that `leave`.
@discardableResult
func expectLeaveThenCloseFrame(_ events: [WireTap.Event], from peer: PeerId?,
                               sourceLocation: SourceLocation = #_sourceLocation) -> PeerId?
{
    let frames = events.compactMap { event -> WebSocketWireFrame? in
        guard case .fromClient(let frame) = event, frame.opcode == WebSocketWireFrame.binary
            || frame.opcode == WebSocketWireFrame.close else { return nil }
        return frame
    }
    #expect(frames.last?.closeCode == 1000, "the client's last frame: \(String(describing: frames.last))",
            sourceLocation: sourceLocation)
    guard frames.count >= 2, case .leave(let sender)? = try? RepoMessage(decoding: frames[frames.count - 2].payload) else {
        Issue.record("no leave right before the close frame", sourceLocation: sourceLocation)
        return nil
    }
    if let peer { #expect(sender == peer, sourceLocation: sourceLocation) }
    return sender
}

/// Expects the server's close frame (1000) to have reached the client before
/// the client ended the connection, and the client to end it with a FIN.
func expectClientEndedCleanlyAfterTheServersClose(_ events: [WireTap.Event],
                                                  sourceLocation: SourceLocation = #_sourceLocation)
{
    let serverClose = events.firstIndex(where: \.isServerClose)
    let clientEnd = events.firstIndex(where: \.isClientEnd)
    guard let serverClose, let clientEnd else {
        Issue.record("server close at \(String(describing: serverClose)), client end at \(String(describing: clientEnd))",
                     sourceLocation: sourceLocation)
        return
    }
    let seen = events.map(\.summary).joined(separator: ", ")
    #expect(serverClose < clientEnd, "the client ended the connection before the server's close frame reached it: \(seen)",
            sourceLocation: sourceLocation)
    if case .fromServer(let frame) = events[serverClose] { #expect(frame.closeCode == 1000, sourceLocation: sourceLocation) }
    #expect(events[clientEnd] == .clientEnded(reset: false), "the client reset the connection", sourceLocation: sourceLocation)
}

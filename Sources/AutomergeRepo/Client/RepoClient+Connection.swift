import Automerge
import HummingbirdWSClient
import Logging

/// The server a ``RepoClient`` is connected to, once it answered `join`.
struct ServerConnection {
    let outbox: Outbox
    let server: PeerId
    /// The name the sync states with this server are saved under; nil when
    /// they are not saved (an ephemeral server, or no storage here).
    let syncStateName: String?
}

/// Why a connection ended, from the client's side.
enum ClientSessionError: Error, CustomStringConvertible {
    case refused(String)
    case protocolViolation(String)
    /// The server did not answer the client's close frame in time.
    case closeTimedOut(Duration)

    var description: String {
        switch self {
        case .refused(let reason): return "the server refused the connection: \(reason)"
        case .protocolViolation(let reason): return "protocol violation: \(reason)"
        case .closeTimedOut(let timeout): return "the server did not answer the close within \(timeout)"
        }
    }
}

extension RepoClient {
    /// Connects, serves the connection until it ends, then waits a back-off
    /// delay and connects again, until ``close()``.
    func runConnectionLoop() async {
        var failures = 0
        while !isClosed, !Task.isCancelled {
            setState(.connecting)
            var reason = "closed"
            do {
                let closeFrame = try await WebSocketClient.connect(
                    url: url,
                    configuration: WebSocketClientConfiguration(maxFrameSize: configuration.maximumMessageSize,
                                                                closeTimeout: configuration.closeTimeout,
                                                                autoPing: .enabled(timePeriod: configuration.keepAliveInterval)),
                    logger: logger
                ) { inbound, outbound, _ in
                    try await self.serve(inbound: inbound, outbound: outbound)
                }
                if let closeFrame { reason = "closed by the server (\(closeFrame.closeCode))" }
            } catch {
                reason = "\(error)"
            }
            let wasConnected = endConnection()
            if isClosed { break }
            failures = wasConnected ? 1 : failures + 1
            setState(.disconnected(reason: reason))
            logger.debug("disconnected", metadata: ["reason": "\(reason)", "attempt": "\(failures)"])
            try? await Task.sleep(for: configuration.reconnectDelay(attempt: failures, jitter: .random(in: -1...1)))
        }
        setState(.closed)
        stateEvents.finish()
    }

    /// One connection: `join`, then every message in until the socket
    /// closes. The connection ends with the close handshake: once its outbox
    /// is closed (by ``close()``, or when it overflows) and written, the
    /// client sends a close frame and reads on until the server's (see `closeSocket(_:after:timeout:)`).
    private func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let outbox = Outbox(limit: configuration.maximumMessageSize * 2)
        openOutbox = outbox
        defer { openOutbox = nil }
        if isClosed {
            outbox.close()  // closed while the socket opened: straight to the close handshake
        } else {
            outbox.send(RepoMessage.join(senderId: peerId, supportedProtocolVersions: [RepoMessage.protocolVersion1],
                                         peerMetadata: peerMetadata).encoded())
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            defer { outbox.close() }
            group.addTask { try await self.receive(inbound, outbox: outbox) }
            group.addTask { [closeTimeout = configuration.closeTimeout] in
                try await Self.closeSocket(outbound, after: outbox, timeout: closeTimeout)
            }
            // The reader ends with the server's close frame (or the socket's
            // end); the writer only when that does not come in time.
            try await group.next()
            group.cancelAll()
        }
    }

    /// Handles every message in until the server's close frame or the
    /// socket's end; once the outbox is closed the client is leaving, and
    /// what still arrives is only read past, to reach the server's close frame.
    private func receive(_ inbound: WebSocketInboundStream, outbox: Outbox) async throws {
        for try await message in inbound.messages(maxSize: configuration.maximumMessageSize) {
            if outbox.isClosed { continue }
            guard case .binary(let buffer) = message else {
                throw ClientSessionError.protocolViolation("a text message")
            }
            let decoded = try RepoMessage(decoding: Array(buffer.readableBytesView),
                                          maximumSize: configuration.maximumMessageSize)
            try await handle(decoded, outbox: outbox)
        }
    }

    /// Writes the outbox until it is closed and written, then sends a close
    /// frame (normal closure) and gives the server `timeout` to answer it.
    /// - Throws: ``ClientSessionError/closeTimedOut`` when the time passes:
    ///   the connection is then torn down without the server's close frame.
    private static func closeSocket(_ outbound: WebSocketOutboundWriter, after outbox: Outbox,
                                    timeout: Duration) async throws
    {
        await outbox.drain(into: outbound)
        try? await outbound.close(.normalClosure, reason: nil)  // fails only when the socket is gone already
        try await Task.sleep(for: timeout)
        throw ClientSessionError.closeTimedOut(timeout)
    }

    /// Forgets the connection; true when the handshake had been done.
    private func endConnection() -> Bool {
        guard let connection else { return false }
        connection.outbox.close()
        self.connection = nil
        return true
    }

    private func handle(_ message: RepoMessage, outbox: Outbox) async throws {
        guard let connection else { return try await acceptHandshake(message, outbox: outbox) }
        switch message {
        case .sync(let sender, _, let document, let data), .request(let sender, _, let document, let data):
            guard sender == connection.server else { return }
            try receiveSync(data, about: document, from: connection)
        case .docUnavailable(let sender, _, let document):
            guard sender == connection.server, let record = documents[document], record.availability == .requested else {
                return
            }
            record.availability = .unavailable
            waiters.fail(with: .documentUnavailable(document)) { $0 == .available(document) }
        case .ephemeral(let sender, _, let count, let session, let document, let data):
            documents[document]?.handle.ephemeralEvents.send(
                RepoEphemeralMessage(senderId: sender, sessionId: session, count: count, data: data))
        case .error(let reason, _, _):
            throw ClientSessionError.refused(reason)
        case .leave:
            throw ClientSessionError.refused("the server left")
        case .join, .peer, .remoteSubscriptionChange, .remoteHeadsChanged, .unknown:
            return  // no remote-heads gossip here; unknown types are dropped as automerge-repo drops them
        }
    }

    /// The server's `peer`: the connection is up; every document syncs.
    private func acceptHandshake(_ message: RepoMessage, outbox: Outbox) async throws {
        switch message {
        case .peer(let server, let version, _, let metadata):
            guard version == RepoMessage.protocolVersion1 else {
                throw ClientSessionError.protocolViolation("the server selected protocol version \(version)")
            }
            let connection = ServerConnection(outbox: outbox, server: server,
                                              syncStateName: storage == nil ? nil : metadata?.syncStateName)
            // Read before the connection is up: a document registered meanwhile starts its own session.
            let saved = await savedSyncStates(of: Array(documents.keys), syncStateName: connection.syncStateName)
            guard !outbox.isClosed, !isClosed else { return }
            self.connection = connection
            setState(.connected(server: server))
            waiters.resolve { $0 == .connected }
            for record in documents.values {
                record.syncState = saved[record.id] ?? SyncState()
                sendSync(record)
            }
        case .error(let reason, _, _):
            throw ClientSessionError.refused(reason)
        default:
            throw ClientSessionError.protocolViolation("expected 'peer', got '\(message.type)'")
        }
    }
}

import Automerge
import AutomergeStore
import Foundation
import Logging
import NIOCore

/// The sync server's state and its handling of each message: the
/// connections, who wants which document, and each peer's sync sessions
/// with the stored documents. Each connection's messages are handled one
/// at a time, in arrival order; the document work they need (SQLite,
/// Automerge) runs on the document's lane (``DocumentLanes``), off the
/// actor, which meanwhile handles other connections' messages. What it
/// looked up before such work is looked up again after it.
///
/// What it accepts, ignores and refuses is in docs/decisions.md
/// ("automerge-repo server").
actor RepoHub {
    let datastore: Datastore
    let configuration: RepoServerConfiguration
    let peerId: PeerId
    /// The storage id the server advertises: its datastore's replica id, stable across runs.
    let storageId: StorageId
    /// The server's connections as its gates see them: a join marks its connection's handshake done.
    let registry: ConnectionRegistry
    /// Where document work runs.
    let lanes: DocumentLanes
    private let logger: Logger
    private var connections: [ConnectionId: HubConnection] = [:]
    private var connectionOfPeer: [PeerId: ConnectionId] = [:]
    /// The connections that synced or asked for each document.
    private var subscribers: [DocumentId: Set<ConnectionId>] = [:]
    private var nextConnectionId: ConnectionId = 0

    init(datastore: Datastore, configuration: RepoServerConfiguration, registry: ConnectionRegistry,
         lanes: DocumentLanes, logger: Logger)
    {
        self.datastore = datastore
        self.configuration = configuration
        self.registry = registry
        self.lanes = lanes
        peerId = configuration.peerId ?? PeerId("storage-server-\(UUID().uuidString.lowercased())")
        storageId = StorageId(datastore.replicaId)
        self.logger = logger
    }

    /// Registers a new connection on `channel` writing to `outbox`.
    func connect(outbox: Outbox, channel: (any Channel)? = nil) -> ConnectionId {
        nextConnectionId += 1
        connections[nextConnectionId] = HubConnection(
            id: nextConnectionId, outbox: outbox, channel: channel,
            replies: ByteAllowance(bytesPerSecond: configuration.replyBytesPerSecond, burst: configuration.replyBurstBytes),
            ephemeral: ByteAllowance(bytesPerSecond: configuration.ephemeralBytesPerSecond,
                                     burst: configuration.ephemeralBurstBytes))
        return nextConnectionId
    }

    /// Sends connection `id` an error with `reason` and closes it.
    func refuse(_ id: ConnectionId, _ reason: String) {
        guard let connection = connections[id] else { return }
        _ = refuse(connection, reason)
    }

    /// Forgets the connection and closes its outbox.
    func disconnect(_ id: ConnectionId) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        connection.outbox.close()
        if let peer = connection.peerId, connectionOfPeer[peer] == id { connectionOfPeer[peer] = nil }
        for document in connection.documents {
            subscribers[document]?.remove(id)
            if subscribers[document]?.isEmpty == true { subscribers[document] = nil }
        }
    }

    /// Whether `peer` has a joined connection open.
    func isConnected(_ peer: PeerId) -> Bool { connectionOfPeer[peer] != nil }

    /// Handles one WebSocket message from connection `id`.
    /// The message is decoded before the actor is entered: a large one
    /// (an ephemeral message of megabytes) must not hold every other
    /// connection's routing while it is parsed.
    nonisolated func receive(_ bytes: [UInt8], from id: ConnectionId) async -> HubDisposition {
        let message: RepoMessage
        do {
            message = try RepoMessage(decoding: bytes, maximumSize: configuration.maximumMessageSize)
        } catch {
            await refuse(id, "malformed message: \(error)")
            return .close
        }
        return await receive(message, from: id)
    }

    private func receive(_ message: RepoMessage, from id: ConnectionId) async -> HubDisposition {
        guard let connection = connections[id] else { return .close }
        guard connection.hasJoined else { return join(connection, with: message) }
        return await handle(message, from: connection)
    }

    /// Queues `error` with `reason` and closes the connection's outbox.
    private func refuse(_ connection: HubConnection, _ reason: String) -> HubDisposition {
        logger.info("closing connection", metadata: ["peer": "\(connection.peerId?.rawValue ?? "-")", "reason": "\(reason)"])
        connection.send(.error(message: reason, senderId: peerId, targetId: connection.peerId))
        connection.outbox.close()
        return .close
    }

    // MARK: Handshake

    private func join(_ connection: HubConnection, with message: RepoMessage) -> HubDisposition {
        guard case .join(let sender, let versions, let metadata) = message else {
            return refuse(connection, "expected a join message, got '\(message.type)'")
        }
        // automerge-repo's WebSocket server reads a join without versions as version "1".
        guard (versions ?? [RepoMessage.protocolVersion1]).contains(RepoMessage.protocolVersion1) else {
            return refuse(connection, "unsupported protocol versions \(versions ?? []); this server speaks \"1\"")
        }
        if let previous = connectionOfPeer[sender], let old = connections[previous] {
            // A peer that reconnects before its old socket timed out: the new
            // connection wins, as in automerge-repo; the old one is told why
            // and closed, never left open and silently without updates.
            _ = refuse(old, "peer \(sender) joined again on another connection")
            disconnect(old.id)
        }
        connection.peerId = sender
        // A peer without a kept name (ephemeral, or no storage) has its states for this connection only.
        let kept = metadata?.syncStateName
        connection.syncPeer = DocumentSyncPeer(datastore: datastore, peer: kept ?? "automerge-repo:peer:\(sender)",
                                               persistsSyncStates: kept != nil,
                                               heldChangeLimits: configuration.heldChangeLimits,
                                               syncStatesPerDocument: configuration.maximumSyncStatesPerDocument)
        connectionOfPeer[sender] = connection.id
        if let channel = connection.channel { registry.markJoined(channel) }
        connection.send(.peer(senderId: peerId, selectedProtocolVersion: RepoMessage.protocolVersion1, targetId: sender,
                              peerMetadata: PeerMetadata(storageId: storageId, isEphemeral: false)))
        return .keepReading
    }

    // MARK: Messages after the handshake

    private func handle(_ message: RepoMessage, from connection: HubConnection) async -> HubDisposition {
        switch message {
        case .sync(let sender, let target, let document, let data),
            .request(let sender, let target, let document, let data):
            guard isAddressedToUs(sender, target, connection) else { return .keepReading }
            let isRequest = if case .request = message { true } else { false }
            let holdsNothing = isRequest || Self.holdsNothing(data)
            guard let weight = await weigh(data, for: document, from: connection, isRequest: isRequest,
                                           holdsNothing: holdsNothing)
            else {
                return answerUnavailable(document, to: connection)
            }
            return await sync(document, data, from: connection, weight: weight, holdsNothing: holdsNothing)
        case .ephemeral(let sender, let target, let count, let session, let document, let data):
            guard isAddressedToUs(sender, target, connection) else { return .keepReading }
            relayEphemeral(sender: sender, count: count, session: session, document: document, data: data,
                           from: connection)
            return .keepReading
        case .leave:
            // The peer is done: its connection, subscriptions and unsaved sync
            // states go with the disconnect that follows, as in automerge-repo and samod.
            logger.debug("peer left", metadata: ["peer": "\(connection.peerId!)"])
            connection.outbox.close()
            return .close
        case .error(let reason, _, _):
            logger.info("peer sent an error", metadata: ["peer": "\(connection.peerId!)", "message": "\(reason)"])
            connection.outbox.close()
            return .close
        case .join:
            return refuse(connection, "join sent twice on one connection")
        case .peer, .docUnavailable, .remoteSubscriptionChange, .remoteHeadsChanged, .unknown:
            // No remote-heads gossip here, and unknown types are dropped as automerge-repo drops them.
            return .keepReading
        }
    }

    /// Messages must come from the peer that joined and be meant for this
    /// server; others are dropped (this server relays no one's sync messages).
    private func isAddressedToUs(_ sender: PeerId, _ target: PeerId, _ connection: HubConnection) -> Bool {
        sender == connection.peerId && target == peerId
    }

    /// Adds `document` to what the connection follows; false past the limit.
    private func subscribe(_ connection: HubConnection, to document: DocumentId) -> Bool {
        if !connection.documents.contains(document) {
            guard connection.documents.count < configuration.maximumDocumentsPerConnection else { return false }
            connection.documents.insert(document)
        }
        subscribers[document, default: []].insert(connection.id)
        return true
    }

    private func answerUnavailable(_ document: DocumentId, to connection: HubConnection) -> HubDisposition {
        // The asker still follows the document: it gets it if another peer brings it later.
        guard subscribe(connection, to: document) else { return tooManyDocuments(connection) }
        connection.send(.docUnavailable(senderId: peerId, targetId: connection.peerId!, documentId: document))
        return .keepReading
    }

    private func tooManyDocuments(_ connection: HubConnection) -> HubDisposition {
        refuse(connection, "more than \(configuration.maximumDocumentsPerConnection) documents on one connection")
    }

    /// Applies the peer's sync message (stored before anything is answered),
    /// answers it, and offers what changed to the document's other
    /// followers. The answer is charged to the connection's allowance, and,
    /// when the peer `holdsNothing` (the answer is the whole document), to
    /// its whole-document interval.
    private func sync(_ document: DocumentId, _ data: [UInt8], from connection: HubConnection,
                      weight: DocumentLanes.Work, holdsNothing: Bool) async -> HubDisposition
    {
        guard subscribe(connection, to: document) else { return tooManyDocuments(connection) }
        guard let syncPeer = connection.syncPeer, let peer = connection.peerId else { return .close }
        let outcome: DocumentSyncOutcome
        do {
            outcome = try await work(document, weight, for: connection) {
                try syncPeer.receiveSyncMessage(Data(data), docId: document.description)
            }
        } catch let error as ReplicationError {
            return refuse(connection, "document \(document): \(error)")
        } catch is CancellationError {
            return .close  // the server is shutting down (see work(_:_:for:_:))
        } catch {
            logger.error("storage failed", metadata: ["document": "\(document)", "error": "\(error)"])
            return refuse(connection, "the server could not store document \(document)")
        }
        var pause = Duration.zero
        if let reply = outcome.reply {
            connection.send(.sync(senderId: peerId, targetId: peer, documentId: document, data: Array(reply)))
            pause = connection.replies.charge(reply.count, at: .now)
            if holdsNothing {
                pause = max(pause, connection.wholeReplySent(of: document, at: .now,
                                                             interval: configuration.wholeDocumentInterval))
            }
        }
        if outcome.changed { await offer(document, from: connection, weight) }
        return pause > .zero ? .pause(pause) : .keepReading
    }

    /// Whether the document work for sync message `data` from `connection`
    /// is bulk by what is known before the document is read: a large
    /// message, or a connection whose work has lately taken more than its
    /// share of a core (see ``WorkMeter``).
    private func weight(of connection: HubConnection, message data: [UInt8]) -> DocumentLanes.Work {
        guard data.count < configuration.bulkMessageSize,
              connection.work.rate(at: .now) <= configuration.bulkConnectionShare else { return .bulk }
        return .regular
    }

    /// The weight of the document work for sync message `data` (a request
    /// when `isRequest`); nil for a request of a document not stored. A
    /// request, or a message with no heads, is from a peer that
    /// `holdsNothing`: its reply is the whole document, weighed by its stored size.
    private func weigh(_ data: [UInt8], for document: DocumentId, from connection: HubConnection, isRequest: Bool,
                       holdsNothing: Bool) async -> DocumentLanes.Work?
    {
        let weight = weight(of: connection, message: data)
        guard isRequest || (weight == .regular && holdsNothing) else { return weight }
        guard let size = await storedSize(of: document, weight, for: connection) else { return isRequest ? nil : .regular }
        return weight == .bulk ? .bulk : Self.weight(ofReply: size, configuration)
    }

    /// The weight of answering a peer that holds nothing of a document of
    /// `storedSize` bytes: the reply is all of it, a transfer, not an edit,
    /// whoever asks (a new connection has no history for the meter to
    /// judge, and one that asks once and goes, again and again, never
    /// would), unless the document is small: then it is as light as an
    /// edit, and a new peer's first fetch of it does not wait behind
    /// strangers' bulk work on other documents.
    private static func weight(ofReply storedSize: Int, _ configuration: RepoServerConfiguration) -> DocumentLanes.Work {
        storedSize < configuration.bulkMessageSize ? .regular : .bulk
    }

    /// Whether sync message `data` says its sender holds nothing (no heads).
    /// Only its heads are read: the hub is every connection's way in, and
    /// decoding a message's changes here held them all.
    private static func holdsNothing(_ data: [UInt8]) -> Bool {
        SyncMessage.heads(peekingAt: data[...])?.isEmpty ?? false
    }

    /// The bytes stored for `document`, read on its lane: nil when it is not
    /// stored or cannot be read (a storage error is reported by the sync
    /// that follows, or a request answered as for a document the server lacks).
    private func storedSize(of document: DocumentId, _ weight: DocumentLanes.Work, for connection: HubConnection) async -> Int? {
        let datastore = datastore
        let size = try? await work(document, weight, for: connection) { try datastore.storedByteCount(document.description) }
        return size ?? nil
    }

    /// Runs `body` on `document`'s lane and charges the time it took to `connection`.
    /// - Throws: `CancellationError` when the server is shutting down and
    ///   the peer is gone before the work starts: its reply could not reach
    ///   it, and nothing of its message was acknowledged.
    private func work<T: Sendable>(_ document: DocumentId, _ weight: DocumentLanes.Work, for connection: HubConnection,
                                   _ body: @escaping @Sendable () throws -> T) async throws -> T
    {
        let channel = connection.channel
        let (result, spent) = try await lanes.run(document, weight) { [lanes] () -> (Result<T, any Error>, Duration) in
            if lanes.isDraining, channel?.isActive == false { throw CancellationError() }
            let start = ContinuousClock.now
            let result = Result { try body() }
            return (result, .now - start)
        }
        connection.work.add(spent, at: .now)
        return try result.get()
    }

    /// Sends each other follower of `document` the sync message it now
    /// needs, as work of `sender`'s weight. It is not charged to `sender`:
    /// the more peers follow a document, the more an offer costs, and
    /// strangers following a document must not make its editor's work bulk.
    private func offer(_ document: DocumentId, from sender: HubConnection, _ weight: DocumentLanes.Work) async {
        let followers = (subscribers[document] ?? []).compactMap { id -> (HubConnection, DocumentSyncPeer)? in
            guard id != sender.id, let follower = connections[id], let syncPeer = follower.syncPeer,
                  !follower.outbox.isClosed else { return nil }
            return (follower, syncPeer)
        }
        guard !followers.isEmpty else { return }
        let peers = followers.map(\.1)
        let messages: [Result<Data?, any Error>]
        do {
            messages = try await lanes.run(document, weight) {
                peers.map { peer in Result { try peer.generateSyncMessage(docId: document.description) } }
            }
        } catch {
            return  // the lanes stopped: the server is going away
        }
        for ((follower, _), message) in zip(followers, messages) {
            switch message {
            case .success(let message?):
                follower.send(.sync(senderId: peerId, targetId: follower.peerId!, documentId: document, data: Array(message)))
            case .success(nil):
                continue
            case .failure(let error):
                logger.error("cannot offer a change", metadata: ["document": "\(document)", "error": "\(error)"])
            }
        }
    }

    /// An ephemeral message too large to relay, dropped before it was decoded.
    nonisolated func droppedEphemeral(size: Int, from id: ConnectionId) {
        logger.debug("ephemeral message dropped: too large", metadata: ["connection": "\(id)", "bytes": "\(size)"])
    }

    /// Relays an ephemeral message to the document's other followers, once
    /// per session and count (a lower or equal count is a repeat).
    private func relayEphemeral(sender: PeerId, count: UInt64, session: String, document: DocumentId, data: [UInt8],
                                from connection: HubConnection)
    {
        guard data.count <= configuration.maximumEphemeralMessageSize else {
            logger.debug("ephemeral message dropped: too large", metadata: ["peer": "\(sender)", "bytes": "\(data.count)"])
            return
        }
        guard connection.acceptEphemeral(session: session, count: count) else { return }
        guard connection.ephemeral.draw(data.count, at: .now) else {
            logger.debug("ephemeral message dropped: past the sender's rate", metadata: ["peer": "\(sender)"])
            return
        }
        // Dropped, not queued, for a follower that has not read what it was sent before.
        for id in subscribers[document] ?? [] where id != connection.id {
            guard let follower = connections[id], let target = follower.peerId,
                  follower.outbox.queuedBytes <= configuration.maximumEphemeralBacklog else { continue }
            let message = RepoMessage.ephemeral(senderId: sender, targetId: target, count: count, sessionId: session,
                                                documentId: document, data: data)
            follower.outbox.sendUnlessBacklogged(message.encoded(), backlog: configuration.maximumEphemeralBacklog)
        }
    }
}

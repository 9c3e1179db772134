import Automerge
import Foundation

extension RepoClient {
    /// Sends the server the document's next sync message, if it has one to
    /// send: `request` while the document is asked for, `sync` otherwise.
    func sendSync(_ record: ClientDocument) {
        guard let connection, let data = record.document.generateSyncMessage(state: record.syncState) else { return }
        let message: RepoMessage = record.availability == .available
            ? .sync(senderId: peerId, targetId: connection.server, documentId: record.id, data: Array(data))
            : .request(senderId: peerId, targetId: connection.server, documentId: record.id, data: Array(data))
        connection.outbox.send(message.encoded())
    }

    /// Applies the server's sync message to the document and answers it.
    func receiveSync(_ data: [UInt8], about id: DocumentId, from connection: ServerConnection) throws {
        guard let record = documents[id] else { return }  // nothing here asked for it
        do {
            try record.document.receiveSyncMessage(state: record.syncState, message: Data(data))
        } catch {
            throw ClientSessionError.protocolViolation("document \(id): \(error)")
        }
        if announce(record, origin: .remote) { persist(record) }
        if record.availability != .available, !record.document.heads().isEmpty {
            record.availability = .available
            waiters.resolve { $0 == .available(id) }
        }
        saveSyncState(of: record, with: connection)
        sendSync(record)
        if record.document.hasOurChanges(state: record.syncState) {
            waiters.resolve { $0 == .serverHasOurChanges(id) }
        }
    }

    /// The stored document `id` and its saved sync state under
    /// `syncStateName` (new when there is none), read off the actor.
    func storedDocument(_ id: DocumentId, syncStateName: String?) async throws -> (Document?, SyncState) {
        guard let storage else { return (nil, SyncState()) }
        return try await storageQueue.run {
            let document = try storage.storedAutomergeDocument(id.description)
            let state = syncStateName.flatMap { try? storage.savedSyncState(peer: $0, docId: id.description) }
            return (document, state ?? SyncState())
        }
    }

    /// The saved sync states of documents `ids` under `syncStateName` (new
    /// ones where there are none), read off the actor.
    func savedSyncStates(of ids: [DocumentId], syncStateName: String?) async -> [DocumentId: SyncState] {
        guard let storage, let syncStateName else { return [:] }
        let states = try? await storageQueue.run {
            ids.map { (try? storage.savedSyncState(peer: syncStateName, docId: $0.description)) ?? SyncState() }
        }
        return Dictionary(uniqueKeysWithValues: zip(ids, states ?? []))
    }

    /// Queues the save of the document's sync state with the server.
    private func saveSyncState(of record: ClientDocument, with connection: ServerConnection) {
        guard let name = connection.syncStateName, let storage else { return }
        let (state, id, logger) = (record.syncState, record.id, logger)
        storageQueue.add {
            do {
                try storage.saveSyncState(state, peer: name, docId: id.description)
            } catch {
                logger.error("cannot save a sync state", metadata: ["document": "\(id)", "error": "\(error)"])
            }
        }
    }

    /// Sends an ephemeral message about `id` to the server, if connected.
    func sendEphemeral(_ data: [UInt8], about id: DocumentId) {
        guard let connection else { return }
        ephemeralCount += 1
        connection.outbox.send(RepoMessage.ephemeral(senderId: peerId, targetId: connection.server, count: ephemeralCount,
                                                     sessionId: sessionId, documentId: id, data: data).encoded())
    }

    /// Waits until the server has said it holds every change of the document.
    func waitUntilServerHasChanges(of id: DocumentId, timeout: Duration) async throws {
        if isClosed { throw RepoError.closed }
        guard let record = documents[id] else { return }
        if connection != nil, record.document.hasOurChanges(state: record.syncState) { return }
        sendSync(record)
        try await wait(for: .serverHasOurChanges(id), timeout: timeout)
    }
}

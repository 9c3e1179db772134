@_spi(Observation) import Automerge
import AutomergeStore
import Foundation
import Logging
import NIOConcurrencyHelpers

/// A peer of the automerge-repo network that syncs documents with one
/// server (an automerge-repo sync server, samod, or ``RepoServer``) over
/// WebSocket, as automerge-repo's `Repo` with a WebSocket client adapter does.
///
/// It connects on creation and stays connected, reconnecting with
/// exponential back-off when the connection drops. Documents from
/// ``create(_:)`` and `find` stay in sync both ways while it
/// is connected. With a `storage` datastore, documents and the sync state
/// with the server are kept there, so that a restarted client has its
/// documents offline and resumes syncing from what both sides share.
/// The client runs until ``close()``, which a program calls when done with it.
///
/// ```swift
/// let client = RepoClient(url: "ws://localhost:3030")
/// let handle = try await client.create()
/// try handle.document.put(obj: .ROOT, key: "title", value: .String("Hello"))
/// print(handle.url)   // automerge:…, for other peers' find
/// ```
public actor RepoClient {
    /// The server's WebSocket URL (`ws://` or `wss://`).
    public nonisolated let url: String
    /// The peer id this client goes by.
    public nonisolated let peerId: PeerId
    /// The datastore keeping documents and sync states, if any.
    public nonisolated let storage: Datastore?
    nonisolated let configuration: RepoClientConfiguration
    /// Where `storage` is called, off the actor.
    nonisolated let storageQueue: StorageQueue
    let logger: Logger
    /// The random id of this run, for ephemeral messages.
    let sessionId = UUID().uuidString.lowercased()
    var ephemeralCount: UInt64 = 0

    /// Where the connection stands now.
    public private(set) var connectionState: RepoConnectionState = .connecting
    let stateEvents = Broadcast<RepoConnectionState>()
    var documents: [DocumentId: ClientDocument] = [:]
    /// The connection once the server accepted the handshake.
    var connection: ServerConnection?
    /// The open WebSocket's outbox, from the upgrade (before `join` is answered) to the socket's end.
    var openOutbox: Outbox?
    var isClosed = false
    var waiters = Waiters()
    private nonisolated let connectionLoop = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// A client of the server at `url` (`ws://host:port`), connecting at once.
    /// - Parameters:
    ///   - url: The server's WebSocket URL.
    ///   - configuration: The peer id, message size limit, reconnection delays and find timeout.
    ///   - logger: Where connection events are logged.
    ///   - storage: Where documents and sync states are kept; none keeps
    ///     them in memory (the client then says it is ephemeral).
    public init(url: String, storage: Datastore? = nil, configuration: RepoClientConfiguration = RepoClientConfiguration(),
                logger: Logger = Logger(label: "automerge.repo.client"))
    {
        self.url = url
        self.storage = storage
        self.configuration = configuration
        self.logger = logger
        storageQueue = StorageQueue(pool: configuration.storageThreadPool)
        peerId = configuration.peerId ?? PeerId("swift-\(UUID().uuidString.lowercased())")
        let loop = Task { [self] in await runConnectionLoop() }
        connectionLoop.withLockedValue { $0 = loop }
    }

    /// What the client says of itself in `join`: its storage's id when it has storage.
    nonisolated var peerMetadata: PeerMetadata {
        PeerMetadata(storageId: storage.map { StorageId($0.replicaId) }, isEphemeral: storage == nil)
    }

    /// A stream of the connection's states, starting with the current one.
    public func connectionStates() -> AsyncStream<RepoConnectionState> {
        stateEvents.subscribe(startingWith: connectionState)
    }

    /// Waits until the client is connected.
    /// - Throws: ``RepoError/timedOut``, ``RepoError/closed``.
    public func waitUntilConnected(timeout: Duration = .seconds(30)) async throws {
        if isClosed { throw RepoError.closed }
        if connection != nil { return }
        try await wait(for: .connected, timeout: timeout)
    }

    /// Creates a document with a new random id, from `document` (its
    /// history kept) or empty; an empty one gets an empty change, as in
    /// automerge-repo, so that it exists for other peers at once.
    public func create(_ document: Document = Document()) throws -> RepoDocumentHandle {
        if isClosed { throw RepoError.closed }
        if document.heads().isEmpty { document.emptyChange() }
        let record = register(RepoDocumentHandle(id: DocumentId.random(), document: document, client: self),
                              availability: .available, syncState: SyncState())
        persist(record)
        sendSync(record)
        return record.handle
    }

    /// The document at `url` (its `#heads`, if any, are not applied): as `find` by document id.
    public func find(_ url: AutomergeURL, timeout: Duration? = nil) async throws -> RepoDocumentHandle {
        try await find(url.documentId, timeout: timeout)
    }

    /// The document `id`: at once when it is here (or in storage), else once
    /// the server sends it.
    /// - Throws: ``RepoError/documentUnavailable(_:)`` when the server does
    ///   not have it, ``RepoError/timedOut`` when `timeout` (the
    ///   configuration's ``RepoClientConfiguration/findTimeout`` if nil)
    ///   passes first, ``RepoError/closed``.
    public func find(_ id: DocumentId, timeout: Duration? = nil) async throws -> RepoDocumentHandle {
        if isClosed { throw RepoError.closed }
        let record: ClientDocument
        if let known = documents[id] { record = known } else { record = try await loadOrRequest(id) }
        switch record.availability {
        case .available:
            return record.handle
        case .unavailable:
            record.availability = .requested
            record.syncState = SyncState()
            sendSync(record)
        case .requested:
            break
        }
        try await wait(for: .available(id), timeout: timeout ?? configuration.findTimeout)
        return record.handle
    }

    /// Stops syncing: says `leave` to the server (when joined), closes the
    /// WebSocket with the close handshake, and ends every stream; returns
    /// once the connection is down: after the server's close frame, or
    /// after ``RepoClientConfiguration/closeTimeout`` without it.
    /// Documents stay readable and editable; storage keeps them.
    public func close() async {
        if !isClosed {
            isClosed = true
            if let connection { connection.outbox.send(RepoMessage.leave(senderId: peerId).encoded()) }
            if let openOutbox {
                openOutbox.close()  // the connection's writer sends what is queued, then the close frame
            } else {
                connectionLoop.withLockedValue { $0?.cancel() }  // connecting, or waiting to reconnect
            }
            waiters.failAll(with: .closed)
            for record in documents.values {
                if let token = record.observerToken { record.document.stopObservingChanges(token) }
                if record.document.heads() != record.announcedHeads { persist(record) }  // edited, not yet noticed
                record.handle.changeEvents.finish()
                record.handle.ephemeralEvents.finish()
            }
        }
        await connectionLoop.withLockedValue { $0 }?.value
        await storageQueue.drained()
    }

    /// The stored document, or a new empty one asked of the server.
    private func loadOrRequest(_ id: DocumentId) async throws -> ClientDocument {
        let stateName = connection?.syncStateName
        let (stored, state): (Document?, SyncState)
        do {
            (stored, state) = try await storedDocument(id, syncStateName: stateName)
        } catch {
            throw RepoError.storage("cannot read document \(id): \(error)")
        }
        if isClosed { throw RepoError.closed }
        // Another find of the same document may have registered it meanwhile.
        if let registered = documents[id] { return registered }
        let handle = RepoDocumentHandle(id: id, document: stored ?? Document(), client: self)
        let sameConnection = connection != nil && connection?.syncStateName == stateName
        let record = register(handle, availability: stored == nil ? .requested : .available,
                              syncState: sameConnection ? state : SyncState())
        sendSync(record)
        return record
    }

    /// Starts tracking `handle`, in `syncState` with the server: its edits are noticed and synced.
    private func register(_ handle: RepoDocumentHandle, availability: ClientDocument.Availability, syncState: SyncState)
        -> ClientDocument
    {
        let record = ClientDocument(handle: handle, availability: availability)
        record.syncState = syncState
        let pending = record.localEditPending
        let id = handle.id
        record.observerToken = handle.document.observeChanges { [weak self] in
            // One look per burst of edits: the flag stays set until the client has looked.
            guard let self, !pending.withLockedValue({ wasPending in
                defer { wasPending = true }
                return wasPending
            }) else { return }
            Task { await self.noticeLocalEdit(id) }
        }
        documents[handle.id] = record
        return record
    }

    /// Looks at edits made through a handle's document: tells its
    /// subscribers, keeps the document, and sends the server the changes.
    func noticeLocalEdit(_ id: DocumentId) {
        guard let record = documents[id], !isClosed else { return }
        record.localEditPending.withLockedValue { $0 = false }
        guard announce(record, origin: .local) else { return }
        persist(record)
        sendSync(record)
    }

    /// Tells the subscribers of new heads; false when they have not moved.
    @discardableResult
    func announce(_ record: ClientDocument, origin: RepoDocumentChange.Origin) -> Bool {
        let heads = record.document.heads()
        guard heads != record.announcedHeads else { return false }
        record.announcedHeads = heads
        record.handle.changeEvents.send(RepoDocumentChange(heads: heads, origin: origin))
        return true
    }

    /// Queues the document's write to storage, if the client has one.
    func persist(_ record: ClientDocument) {
        guard let storage else { return }
        let (document, id, logger) = (record.document, record.id, logger)
        storageQueue.add {
            do {
                try storage.storeAutomergeDocument(document, docId: id.description)
            } catch {
                logger.error("cannot store a document", metadata: ["document": "\(id)", "error": "\(error)"])
            }
        }
    }

    func setState(_ state: RepoConnectionState) {
        guard state != connectionState else { return }
        connectionState = state
        stateEvents.send(state)
    }
}

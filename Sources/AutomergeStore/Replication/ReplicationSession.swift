import Foundation

/// What one side of a replication does: which documents it offers, and
/// whether it applies what the peer sends.
struct ReplicationPlan: Sendable {
    /// Whether this side opened the session (the replicator) or answers it.
    var isInitiator: Bool
    var offers: Bool
    var applies: Bool
    /// The only documents this side offers, when set (a pull by document ids).
    var offerOnly: Set<ExactString>?
    /// Decides which documents this side offers, when set (a push filter).
    var filter: (@Sendable (DocumentRevision) -> Bool)?
    var continuous: Bool
    /// How long the peer may stay silent while an answer is due.
    var timeout: Double
    /// The only documents the initiator asks the peer for, when set (a pull filter).
    var pullOnly: Set<ExactString>?
}

/// One replication between a local datastore and a peer over a transport,
/// from this side: the handshake, the offers, the per-document exchanges
/// of the Automerge sync protocol, attachment fetches, and the ending (see
/// ``ReplicationMessage`` for the protocol and docs/decisions.md for why).
/// Runs on one task; every store write of a batch of frames is one transaction.
final class ReplicationSession: @unchecked Sendable {
    // @unchecked: its state is touched only by the one task that runs it (`run()`), after
    // `onProgress` is set, or by `blocking` while that task awaits it; other tasks only add to
    // `inputs`, which locks itself.
    enum Input: Sendable {
        case frame(ReplicationFrame)
        case localChange(DocumentChange)
        case stop
        case tick
    }

    let store: Datastore
    /// Where the session's store calls run, off the cooperative threads.
    private let blocking = BlockingQueue(label: "automerge.replication.store")
    let transport: any ReplicationTransport
    private(set) var plan: ReplicationPlan
    /// Where the transport's frames, local writes, ticks and the stop request arrive.
    let inputs = AsyncQueue<Input>()
    /// Called with the summary after every batch.
    var onProgress: (ReplicationSummary) -> Void = { _ in }

    private var summary = ReplicationSummary()
    private var states: ReplicationSyncStates!
    private var peer = ""
    private var nextSerialOut: UInt64 = 0
    private var nextSerialIn: UInt64 = 0
    private var offersDone = false
    private var peerOffersDone = false
    private var sentDocuments = Set<ExactString>()
    private var receivedDocuments = Set<ExactString>()
    private var waits = AttachmentWaits()
    /// Sequences of the writes this session made, which it does not offer back.
    private var ownWrites = Set<Int64>()
    private var lastHeard = ContinuousClock.now
    /// Documents this run still has to offer.
    private var pendingOffers: ArraySlice<String> = []

    init(store: Datastore, transport: any ReplicationTransport, plan: ReplicationPlan) {
        self.store = store
        self.transport = transport
        self.plan = plan
    }

    private var isComplete: Bool {
        offersDone && peerOffersDone && summary.changesTotal == summary.changesProcessed && waits.isEmpty
    }

    /// Runs the session to its end: complete (one-shot), stopped, or
    /// failed with a ``ReplicationError`` (the store's own errors as
    /// ``ReplicationError/store(_:)``).
    func run() async throws -> ReplicationSummary {
        let tasks = startFeeding()
        defer {
            tasks.forEach { $0.cancel() }
            localChanges?.cancel()
        }
        do {
            try await handshake()
            // Before the feed is read: a write committed in between is
            // then offered twice rather than not at all.
            if plan.continuous && plan.offers { feedLocalChanges() }
            if plan.offers {
                pendingOffers = try await blocking.run { [store, peer, plan] in
                    try store.replicationOffers(peer: peer, only: plan.offerOnly, filter: plan.filter)
                }[...]
            }
            try await offerMore()
            try await exchange()
            await transport.close()
            return summary
        } catch {
            let failure = (error as? ReplicationError) ?? (error as? StoreError).map(ReplicationError.store)
                ?? .connectionLost("\(error)")
            if case .peerFailed = failure {} else { try? await send(.failure(failure.description)) }
            await transport.close()
            throw failure
        }
    }

    /// Starts the tasks that feed ``inputs``: the transport's frames and a
    /// tick for the timeout.
    private func startFeeding() -> [Task<Void, Never>] {
        let inputs = inputs, transport = transport, timeout = plan.timeout
        let reader = Task {
            do {
                while let frame = try await transport.receive() { inputs.push(.frame(frame)) }
                inputs.finish()
            } catch {
                inputs.finish(throwing: error)
            }
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(max(0.01, timeout / 4)))
                inputs.push(.tick)
            }
        }
        return [reader, ticker]
    }

    private var localChanges: Task<Void, Never>?

    private func feedLocalChanges() {
        let inputs = inputs, stream = store.changeEvents()
        localChanges = Task {
            for await change in stream { inputs.push(.localChange(change)) }
        }
    }

    // MARK: Handshake

    private func handshake() async throws {
        if plan.isInitiator {
            try await send(.hello(ReplicationHello(replicaId: store.replicaId, initiatorSends: plan.offers,
                                                   initiatorReceives: plan.applies,
                                                   pullDocumentIds: plan.pullOnly.map { $0.sorted().map(\.string) },
                                                   continuous: plan.continuous)))
        }
        guard case .hello(let hello) = try await nextFrame() else {
            throw ReplicationError.protocolViolation("the session did not open with a hello")
        }
        guard hello.version == 1 else {
            throw ReplicationError.protocolViolation("protocol version \(hello.version); this side speaks 1")
        }
        guard (1...256).contains(hello.replicaId.utf8.count), hello.replicaId != store.replicaId else {
            throw ReplicationError.protocolViolation("replica id '\(hello.replicaId.prefix(80))' is empty, too long, or this datastore's own")
        }
        peer = hello.replicaId
        if !plan.isInitiator {
            plan.offers = hello.initiatorReceives
            plan.applies = hello.initiatorSends
            plan.offerOnly = hello.pullDocumentIds.map { Set($0.map { ExactString($0) }) }
            plan.continuous = hello.continuous
            try await send(.hello(ReplicationHello(replicaId: store.replicaId)))
        }
        states = ReplicationSyncStates(peer: peer, readOnly: !plan.applies)
    }

    /// The next frame, for the handshake, where nothing else may come first.
    private func nextFrame() async throws -> ReplicationMessage {
        while true {
            guard let input = try await inputs.next() else {
                throw ReplicationError.connectionLost("the peer closed the connection before its hello")
            }
            switch input {
            case .frame(let frame): return try checked(frame)
            case .tick: try checkTimeout(answerDue: true)
            case .stop: throw ReplicationError.connectionLost("stopped before the peer said hello")
            case .localChange: continue
            }
        }
    }

    // MARK: Exchanges

    /// Starts exchanges for the documents still to offer while fewer than
    /// ``window`` are under way, then says when all were offered. The
    /// window keeps the documents of the exchanges under way in the
    /// store's document cache (each is loaded once, not once per message),
    /// and what the peer has queued small.
    private func offerMore() async throws {
        while !pendingOffers.isEmpty, summary.changesTotal - summary.changesProcessed < Self.window {
            let room = Self.window - (summary.changesTotal - summary.changesProcessed)
            let batch = pendingOffers.prefix(max(1, min(room, 32)))
            pendingOffers = pendingOffers.dropFirst(batch.count)
            try await perform(batch.map { .offer(docId: $0) })
        }
        guard pendingOffers.isEmpty, !offersDone else { return }
        try await send(.offersDone)
        offersDone = true
    }

    /// How many exchanges a side keeps under way while it has more to offer.
    static let window = 48

    /// Handles inputs until the session ends.
    private func exchange() async throws {
        var completedOnce = false
        while true {
            if isComplete && !completedOnce {
                completedOnce = true
                try await finishRun()
                if !plan.continuous && plan.isInitiator {
                    try await send(.bye)
                    return
                }
            }
            let batch = try await inputs.nextBatch(limit: 256)
            if batch.isEmpty {
                guard isComplete, !plan.continuous else {
                    throw ReplicationError.connectionLost("the peer closed the connection before the replication ended")
                }
                return
            }
            var steps: [ReplicationStep] = []
            for input in batch {
                switch input {
                case .frame(let frame):
                    if try await handle(try checked(frame), steps: &steps) {
                        try await perform(steps)
                        return
                    }
                case .localChange(let change):
                    if try await offers(change) { steps.append(.offer(docId: change.docId)) }
                case .stop:
                    summary.completed = false
                    try await perform(steps)
                    try await send(.bye)
                    return
                case .tick:
                    try checkTimeout(answerDue: !isComplete)
                }
            }
            try await perform(steps)
            try await offerMore()
            if !isComplete { completedOnce = false }
        }
    }

    /// What a frame asks for: a step to run, an answer to send, or the end
    /// (true: the peer said bye).
    private func handle(_ message: ReplicationMessage, steps: inout [ReplicationStep]) async throws -> Bool {
        switch message {
        case .hello:
            throw ReplicationError.protocolViolation("a second hello")
        case .sync(let docId, let bytes, let attachments, let startsExchange):
            try validate(docId: docId)
            if startsExchange { summary.changesTotal += 1 }
            let missing = plan.applies ? try await missingBlobs(attachments) : []
            if waits.isWaiting(docId) || !missing.isEmpty {
                try await request(waits.hold(message, of: docId, missing: missing))
            } else {
                steps.append(.receive(docId: docId, message: bytes))
            }
        case .idle(let docId):
            try validate(docId: docId)
            summary.changesProcessed += 1
            if waits.isWaiting(docId) {
                _ = waits.hold(message, of: docId, missing: [])
            } else {
                steps.append(.ended(docId: docId))
            }
        case .offersDone:
            peerOffersDone = true
        case .blobRequest(let digest):
            if let data = try await blocking.run({ [store] in store.blob(digest: digest) }) {
                summary.attachmentsSent += 1
                try await send(.blob(digest: digest, data: data))
            } else {
                summary.attachmentsUnavailable += 1
                try await send(.blobUnavailable(digest: digest))
            }
        case .blob(let digest, let data):
            try checkRequested(digest)
            try await blocking.run { [store] in try store.storeBlob(data, digest: digest) }
            summary.attachmentsReceived += 1
            release(digest, steps: &steps)
        case .blobUnavailable(let digest):
            try checkRequested(digest)
            summary.attachmentsUnavailable += 1
            release(digest, steps: &steps)
        case .bye:
            summary.completed = isComplete && !plan.continuous
            return true
        case .failure(let reason):
            throw ReplicationError.peerFailed(reason)
        }
        return false
    }

    /// The attachments of `attachments` (each checked) this side lacks.
    private func missingBlobs(_ attachments: [AttachmentDigest]) async throws -> [AttachmentDigest] {
        let valid = try attachments.filter { try validate($0) }
        return try await blocking.run { [store] in valid.filter { !store.holdsBlob($0) } }
    }

    /// Refuses blob bytes (or a blob's absence) this side did not ask for.
    private func checkRequested(_ digest: String) throws {
        guard waits.requested(digest) else {
            throw ReplicationError.protocolViolation("attachment \(digest) was not asked for")
        }
    }

    private func request(_ digests: [String]) async throws {
        for digest in digests { try await send(.blobRequest(digest: digest)) }
    }

    /// A requested blob arrived (or the peer lacks it): the frames of the
    /// documents no longer waiting become steps, in order.
    private func release(_ digest: String, steps: inout [ReplicationStep]) {
        for (docId, message) in waits.arrived(digest) {
            switch message {
            case .sync(_, let bytes, _, _): steps.append(.receive(docId: docId, message: bytes))
            default: steps.append(.ended(docId: docId))
            }
        }
    }

    /// Runs steps in one transaction and sends what they answer.
    private func perform(_ steps: [ReplicationStep]) async throws {
        guard !steps.isEmpty else { return }
        let outcomes = try await blocking.run { [store, states] in try store.replicate(steps, states: states!) }
        for (step, outcome) in zip(steps, outcomes) {
            if let written = outcome.written {
                ownWrites.insert(written.sequence)
                receivedDocuments.insert(ExactString(step.docId))
            }
            // Rare: the document names bytes its announced attachments did
            // not (a partial state); fetch them without holding anything.
            try await request(waits.wait(for: outcome.missingBlobs, docId: nil))
            switch step {
            case .ended: continue
            case .offer(let docId):
                guard let reply = outcome.reply else { continue }
                summary.changesTotal += 1
                try await sendSync(docId, reply, outcome, startsExchange: true)
            case .receive(let docId, _):
                if let reply = outcome.reply {
                    try await sendSync(docId, reply, outcome, startsExchange: false)
                } else {
                    summary.changesProcessed += 1
                    try await send(.idle(docId: docId))
                }
            }
        }
        summary.documentsSent = sentDocuments.count
        summary.documentsReceived = receivedDocuments.count
        onProgress(summary)
    }

    private func sendSync(_ docId: String, _ reply: Data, _ outcome: ReplicationStepOutcome, startsExchange: Bool) async throws {
        if outcome.sendsChanges { sentDocuments.insert(ExactString(docId)) }
        try await send(.sync(docId: docId, message: reply, attachments: outcome.attachments, startsExchange: startsExchange))
    }

    /// Whether a local write is offered to the peer (continuous mode).
    private func offers(_ change: DocumentChange) async throws -> Bool {
        guard plan.offers, ownWrites.remove(change.sequence) == nil else { return false }
        if let only = plan.offerOnly, !only.contains(ExactString(change.docId)) { return false }
        guard let filter = plan.filter else { return true }
        return try await blocking.run { [store] in filter(try store.getDocumentWithId(change.docId)) }
    }

    /// Records that every exchange of the run ended: the checkpoint moves
    /// when this side offered every document it had.
    private func finishRun() async throws {
        summary.completed = true
        onProgress(summary)
        guard plan.offers, plan.offerOnly == nil, plan.filter == nil else { return }
        try await blocking.run { [store, peer] in try store.advanceReplicationCheckpoint(peer: peer) }
    }

    // MARK: Frames

    private func send(_ message: ReplicationMessage) async throws {
        let frame = ReplicationFrame(serial: nextSerialOut, message: message)
        nextSerialOut += 1
        summary.bytesSent += frame.encodedLength
        try await transport.send(frame)
    }

    /// The frame's message, once its serial is the one due.
    private func checked(_ frame: ReplicationFrame) throws -> ReplicationMessage {
        guard frame.serial == nextSerialIn else {
            throw ReplicationError.outOfOrder(expected: nextSerialIn, received: frame.serial)
        }
        nextSerialIn += 1
        summary.bytesReceived += frame.encodedLength
        lastHeard = .now
        return frame.message
    }

    private func checkTimeout(answerDue: Bool) throws {
        guard answerDue, ContinuousClock.now - lastHeard > .seconds(plan.timeout) else { return }
        throw ReplicationError.timedOut(seconds: plan.timeout)
    }

    private func validate(docId: String) throws {
        guard (try? Datastore.validate(docId: docId)) != nil else {
            throw ReplicationError.protocolViolation("invalid document id '\(docId.prefix(80))'")
        }
    }

    /// Checks an announced attachment; true when it is well formed.
    private func validate(_ attachment: AttachmentDigest) throws -> Bool {
        guard BlobStore.sha256Hex(ofDigest: attachment.digest) != nil, attachment.length >= 0 else {
            throw ReplicationError.protocolViolation("malformed attachment digest '\(attachment.digest.prefix(80))'")
        }
        return true
    }
}

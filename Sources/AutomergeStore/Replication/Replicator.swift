import Foundation

/// Replicates a datastore with a peer over a ``ReplicationTransport``, as
/// Cloudant Sync's replicators do, on the Automerge sync protocol: only
/// what the peer lacks is sent, concurrent edits merge without conflicts
/// to resolve by hand, and replicas holding the same changes name the
/// same revision.
///
/// ```swift
/// let (local, remote) = InProcessTransport.pair()
/// Task { try await other.serveReplication(over: remote) }
/// let replicator = Replicator.push(from: datastore, over: local)
/// let summary = try await replicator.run()
/// ```
///
/// A replicator runs once: ``start()`` (or ``run()``) moves it from
/// ``State/pending`` to ``State/started``, then to ``State/complete`` when
/// every exchange ended (one-shot), ``State/stopped`` after ``stop()``, or
/// ``State/error``. Progress and state changes go to the ``delegate`` and
/// to every ``events()`` stream.
public final class Replicator: @unchecked Sendable {
    // @unchecked: the mutable state (`currentState`, `latest`, `failure`, `task`, `streams`) is read and
    // written only under `lock`; the rest is immutable and Sendable.
    /// Where a replicator is in its life.
    public enum State: String, Hashable, Sendable {
        case pending, started, stopping, stopped, complete, error
    }

    /// Which way documents go.
    public enum Direction: Hashable, Sendable {
        /// Local documents go to the peer.
        case push
        /// The peer's documents come here.
        case pull
        /// Both.
        case both
    }

    /// Whether the replicator ends once the datastores are in step.
    public enum Mode: Hashable, Sendable {
        /// Ends when every document changed since the last replication has been exchanged.
        case oneShot
        /// Stays open and replicates each write as it is made, until ``stop()``.
        case continuous
    }

    /// The local datastore.
    public let datastore: Datastore
    public let direction: Direction
    public let mode: Mode
    /// Receives state and progress callbacks, on the replicator's task.
    public weak var delegate: ReplicatorDelegate?

    private let session: ReplicationSession
    private let lock = NSLock()
    private var currentState = State.pending
    private var latest = ReplicationSummary()
    private var failure: ReplicationError?
    private var task: Task<Void, Never>?
    private var streams: [UUID: AsyncStream<ReplicationEvent>.Continuation] = [:]

    /// A replicator of `datastore` with the peer at the other end of `transport`.
    /// - Parameters:
    ///   - datastore: the local datastore to replicate.
    ///   - transport: the connection to the peer, which answers with
    ///     ``Datastore/serveReplication(over:timeout:)``.
    ///   - direction: push, pull or both.
    ///   - mode: once (``Mode/oneShot``) or until stopped (``Mode/continuous``).
    ///   - pushFilter: decides which local documents go (all when nil), as
    ///     Cloudant's push filters do; a document it rejects is not offered.
    ///   - pullDocumentIds: the only documents pulled (all when nil), told
    ///     apart by their Unicode scalars (an array: a `Set<String>` would
    ///     already have merged "é" and "e\u{301}").
    ///   - timeout: how long the peer may stay silent while an answer is due.
    public init(datastore: Datastore, transport: any ReplicationTransport, direction: Direction = .both,
                mode: Mode = .oneShot, pushFilter: (@Sendable (DocumentRevision) -> Bool)? = nil,
                pullDocumentIds: [String]? = nil, timeout: Double = 60)
    {
        self.datastore = datastore
        self.direction = direction
        self.mode = mode
        session = ReplicationSession(store: datastore, transport: transport, plan: ReplicationPlan(
            isInitiator: true, offers: direction != .pull, applies: direction != .push, offerOnly: nil,
            filter: pushFilter, continuous: mode == .continuous, timeout: timeout,
            pullOnly: pullDocumentIds.map { Set($0.map { ExactString($0) }) }))
    }

    /// Pushes `datastore`'s documents (those `filter` accepts) to the peer.
    public static func push(from datastore: Datastore, over transport: any ReplicationTransport, mode: Mode = .oneShot,
                            filter: (@Sendable (DocumentRevision) -> Bool)? = nil) -> Replicator
    {
        Replicator(datastore: datastore, transport: transport, direction: .push, mode: mode, pushFilter: filter)
    }

    /// Pulls the peer's documents (those in `documentIds`, all when nil) into `datastore`.
    public static func pull(into datastore: Datastore, over transport: any ReplicationTransport, mode: Mode = .oneShot,
                            documentIds: [String]? = nil) -> Replicator
    {
        Replicator(datastore: datastore, transport: transport, direction: .pull, mode: mode, pullDocumentIds: documentIds)
    }

    /// The replicator's state.
    public var state: State { lock.withLock { currentState } }
    /// Document exchanges ended so far, of ``changesTotal``.
    public var changesProcessed: Int { lock.withLock { latest.changesProcessed } }
    /// Document exchanges begun so far (both sides' offers; it grows as the peer's arrive).
    public var changesTotal: Int { lock.withLock { latest.changesTotal } }
    /// What the replication did so far.
    public var summary: ReplicationSummary { lock.withLock { latest } }
    /// Why it failed, in state ``State/error``.
    public var error: ReplicationError? { lock.withLock { failure } }

    /// The replicator's events from now on, until it ends.
    public func events() -> AsyncStream<ReplicationEvent> {
        let id = UUID()
        return AsyncStream { continuation in
            let ended = lock.withLock { () -> Bool in
                guard ![.stopped, .complete, .error].contains(currentState) else { return true }
                streams[id] = continuation
                return false
            }
            if ended { continuation.finish() }
            continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.streams.removeValue(forKey: id) } }
        }
    }

    /// Starts replicating in the background; does nothing unless ``State/pending``.
    public func start() {
        guard move(from: .pending, to: .started) else { return }
        emit(.stateChanged(.started))
        session.onProgress = { [weak self] summary in self?.progressed(summary) }
        let running = Task { await self.runSession() }
        lock.withLock { task = running }
    }

    /// Asks a started replicator to stop: it says goodbye to the peer and
    /// ends in ``State/stopped`` (or ``State/complete`` if it finished first).
    public func stop() {
        guard move(from: .started, to: .stopping) else { return }
        emit(.stateChanged(.stopping))
        session.inputs.push(.stop)
    }

    /// Moves to state `next` if the replicator is in state `current`; true when it did.
    private func move(from current: State, to next: State) -> Bool {
        lock.withLock {
            guard currentState == current else { return false }
            currentState = next
            return true
        }
    }

    /// Starts the replicator (if pending) and waits for its end.
    /// - Returns: the summary, once complete or stopped.
    /// - Throws: ``ReplicationError`` when it ends in ``State/error``.
    @discardableResult
    public func run() async throws -> ReplicationSummary {
        start()
        // Another thread's start() may be between its state change and its task.
        while lock.withLock({ task }) == nil { await Task.yield() }
        await lock.withLock { task }?.value
        if let error { throw error }
        return summary
    }

    private func runSession() async {
        do {
            let summary = try await session.run()
            let final: State = summary.completed ? .complete : .stopped
            lock.withLock {
                latest = summary
                currentState = final
            }
            emit(.stateChanged(final))
            if final == .complete { delegate?.replicatorDidComplete(self) }
            emit(.finished(summary))
        } catch {
            let failure = error as? ReplicationError ?? .connectionLost("\(error)")
            lock.withLock {
                self.failure = failure
                currentState = .error
            }
            emit(.stateChanged(.error))
            delegate?.replicatorDidError(self, error: failure)
            emit(.failed(failure))
        }
        let continuations = lock.withLock { () -> [AsyncStream<ReplicationEvent>.Continuation] in
            defer { streams.removeAll() }
            return Array(streams.values)
        }
        continuations.forEach { $0.finish() }
    }

    private func progressed(_ summary: ReplicationSummary) {
        lock.withLock { latest = summary }
        delegate?.replicatorDidChangeProgress(self)
        emit(.progress(changesProcessed: summary.changesProcessed, changesTotal: summary.changesTotal))
    }

    private func emit(_ event: ReplicationEvent) {
        if case .stateChanged = event { delegate?.replicatorDidChangeState(self) }
        for continuation in lock.withLock({ Array(streams.values) }) { continuation.yield(event) }
    }
}

/// What a ``Replicator`` reports as it runs.
public enum ReplicationEvent: Sendable {
    case stateChanged(Replicator.State)
    case progress(changesProcessed: Int, changesTotal: Int)
    /// It ended complete or stopped, having done this.
    case finished(ReplicationSummary)
    case failed(ReplicationError)
}

/// Callbacks of a ``Replicator``, as Cloudant Sync's `CDTReplicatorDelegate`.
public protocol ReplicatorDelegate: AnyObject {
    func replicatorDidChangeState(_ replicator: Replicator)
    func replicatorDidChangeProgress(_ replicator: Replicator)
    func replicatorDidComplete(_ replicator: Replicator)
    func replicatorDidError(_ replicator: Replicator, error: ReplicationError)
}

extension ReplicatorDelegate {
    public func replicatorDidChangeState(_ replicator: Replicator) {}
    public func replicatorDidChangeProgress(_ replicator: Replicator) {}
    public func replicatorDidComplete(_ replicator: Replicator) {}
    public func replicatorDidError(_ replicator: Replicator, error: ReplicationError) {}
}

extension Datastore {
    /// Answers a replicator at the other end of `transport`, which decides
    /// the direction, the documents and the mode. Returns once it said
    /// goodbye (the replication is complete, or it stopped).
    /// - Throws: ``ReplicationError``.
    @discardableResult
    public func serveReplication(over transport: any ReplicationTransport, timeout: Double = 60) async throws
        -> ReplicationSummary
    {
        try await ReplicationSession(store: self, transport: transport, plan: ReplicationPlan(
            isInitiator: false, offers: false, applies: false, offerOnly: nil, filter: nil, continuous: false,
            timeout: timeout, pullOnly: nil)).run()
    }
}

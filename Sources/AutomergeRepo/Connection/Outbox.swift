import NIOConcurrencyHelpers
import NIOCore
import HummingbirdWebSocket

/// The messages waiting to be written to one WebSocket, in order, with a
/// bound on the bytes they hold: a peer that stops reading cannot make its
/// connection hold more than `limit` bytes of replies. When a message would
/// pass the bound the outbox closes and reports it, and the connection is
/// dropped (a sync session recovers from a new connection; a queue that
/// dropped single messages would stall it). A server's outboxes also draw
/// on one ``MemoryBudget``: when all of them together hold as much as it
/// allows, the outbox that asks for more overflows the same way.
final class Outbox: Sendable {
    private struct State {
        var queuedBytes = 0
        var isClosed = false
        var hasOverflowed = false
    }

    private let state = NIOLockedValueBox(State())
    private let continuation: AsyncStream<[UInt8]>.Continuation
    /// The queued messages, for the connection's writer to drain.
    let messages: AsyncStream<[UInt8]>
    let limit: Int
    private let budget: MemoryBudget?
    private let onOverflow: @Sendable () -> Void

    /// An outbox of at most `limit` bytes, drawn from `budget` when given;
    /// `onOverflow` runs once, when a message would pass either.
    init(limit: Int, budget: MemoryBudget? = nil, onOverflow: @escaping @Sendable () -> Void = {}) {
        self.limit = limit
        self.budget = budget
        self.onOverflow = onOverflow
        (messages, continuation) = AsyncStream.makeStream(of: [UInt8].self)
    }

    /// Queues `bytes`; false when the outbox is closed, or now closes because it would pass its bound.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        let (accepted, overflowed) = state.withLockedValue { state -> (Bool, Bool) in
            guard !state.isClosed else { return (false, false) }
            guard state.queuedBytes + bytes.count <= limit, budget?.reserve(bytes.count) ?? true else {
                state.isClosed = true
                state.hasOverflowed = true
                return (false, true)
            }
            state.queuedBytes += bytes.count
            return (true, false)
        }
        if accepted { continuation.yield(bytes) } else { continuation.finish() }
        if overflowed { onOverflow() }
        return accepted
    }

    /// Queues `bytes` only when no more than `backlog` bytes wait before
    /// them, and never overflows for them: for messages that may be dropped
    /// (ephemeral ones) rather than wait behind a peer that does not read.
    @discardableResult
    func sendUnlessBacklogged(_ bytes: [UInt8], backlog: Int) -> Bool {
        let accepted = state.withLockedValue { state -> Bool in
            guard !state.isClosed, state.queuedBytes <= backlog, state.queuedBytes + bytes.count <= limit,
                  budget?.reserve(bytes.count) ?? true
            else { return false }
            state.queuedBytes += bytes.count
            return true
        }
        if accepted { continuation.yield(bytes) }
        return accepted
    }

    /// The bytes waiting to be written.
    var queuedBytes: Int { state.withLockedValue { $0.queuedBytes } }

    /// The writer took `count` bytes off the queue.
    func written(_ count: Int) {
        state.withLockedValue { $0.queuedBytes -= count }
        budget?.release(count)
    }

    /// Whether a message was refused for passing the bound: the peer does not read.
    var hasOverflowed: Bool { state.withLockedValue { $0.hasOverflowed } }

    /// Whether nothing more will be queued.
    var isClosed: Bool { state.withLockedValue { $0.isClosed } }

    /// Queues nothing more; what is queued is still written.
    func close() {
        state.withLockedValue { $0.isClosed = true }
        continuation.finish()
    }
}

extension Outbox {
    /// The size of the frames a large message is written in: the peer's
    /// pings, answered between them, do not wait behind the whole message,
    /// and the connection's gate sees each one leave (see ``ConnectionGate``).
    static let fragmentSize = 16 << 10

    /// Writes the queued messages, each as one binary WebSocket message,
    /// until the outbox is closed and empty or the socket fails. What is
    /// still queued when it stops is given back to the budget.
    func drain(into outbound: WebSocketOutboundWriter) async {
        defer { discardQueued() }
        for await bytes in messages {
            defer { written(bytes.count) }
            do {
                try await Self.write(bytes, to: outbound)
            } catch {
                close()
                return
            }
        }
    }

    private static func write(_ bytes: [UInt8], to outbound: WebSocketOutboundWriter) async throws {
        guard bytes.count > fragmentSize else {
            return try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
        }
        try await outbound.withBinaryMessageWriter { writer in
            var start = 0
            while start < bytes.count {
                let end = min(start + fragmentSize, bytes.count)
                try await writer(ByteBuffer(bytes: bytes[start..<end]))
                start = end
            }
        }
    }

    /// Closes the outbox and gives back the bytes of what was never written.
    private func discardQueued() {
        close()
        let left = state.withLockedValue { state -> Int in
            defer { state.queuedBytes = 0 }
            return state.queuedBytes
        }
        budget?.release(left)
    }
}

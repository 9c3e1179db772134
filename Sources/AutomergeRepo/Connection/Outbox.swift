import NIOConcurrencyHelpers
import NIOCore
import HummingbirdWebSocket

/// The messages waiting to be written to one WebSocket, in order, with a
/// bound on the bytes they hold: a peer that stops reading cannot make its
/// connection hold more than `limit` bytes of replies. When a message would
/// pass the bound the outbox closes and reports it, and the connection is
/// dropped (a sync session recovers from a new connection; a queue that
/// dropped single messages would stall it).
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
    private let onOverflow: @Sendable () -> Void

    /// An outbox of at most `limit` bytes; `onOverflow` runs once, when a message would pass it.
    init(limit: Int, onOverflow: @escaping @Sendable () -> Void = {}) {
        self.limit = limit
        self.onOverflow = onOverflow
        (messages, continuation) = AsyncStream.makeStream(of: [UInt8].self)
    }

    /// Queues `bytes`; false when the outbox is closed, or now closes because it would pass its bound.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        let (accepted, overflowed) = state.withLockedValue { state -> (Bool, Bool) in
            guard !state.isClosed else { return (false, false) }
            guard state.queuedBytes + bytes.count <= limit else {
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

    /// The writer took `count` bytes off the queue.
    func written(_ count: Int) {
        state.withLockedValue { $0.queuedBytes -= count }
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
    /// Writes the queued messages, each as one binary WebSocket message,
    /// until the outbox is closed and empty or the socket fails.
    func drain(into outbound: WebSocketOutboundWriter) async {
        for await bytes in messages {
            written(bytes.count)
            do {
                try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
            } catch {
                close()
                return
            }
        }
    }
}

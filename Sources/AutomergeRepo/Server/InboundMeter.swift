import NIOConcurrencyHelpers
import NIOCore

/// What one connection has received and the server has not yet handled:
/// bytes of a message still arriving (in NIO's frame decoder or as
/// fragments) and whole messages waiting their turn. The connection's gate
/// counts bytes as they arrive, the session gives them back once handled;
/// the count is drawn from the server-wide ``MemoryBudget``.
///
/// The session does not see a connection's ping and pong frames or frame
/// headers, so what it gives back is the payloads; whenever it has nothing
/// queued and no message half-received it gives back everything still
/// counted, so that the difference never accumulates. The gate's
/// keep-alive forgives a connection a few bytes each round
/// (``forgive(upTo:)``): pongs to its pings, a frame header, a small
/// message on its way, none of which a deadline should punish.
final class InboundMeter: Sendable {
    private struct State {
        var held = 0
        /// When the oldest byte not yet part of a whole message arrived.
        var unfinishedSince: NIODeadline?
        var isClosed = false
    }

    private let state = NIOLockedValueBox(State())
    private let budget: MemoryBudget
    /// The most bytes one connection may hold.
    let limit: Int

    init(budget: MemoryBudget, limit: Int) {
        self.budget = budget
        self.limit = limit
    }

    /// Counts `count` bytes that arrived; false when they pass this
    /// connection's limit or the server's budget (the caller closes the connection).
    func received(_ count: Int, at now: NIODeadline) -> Bool {
        state.withLockedValue { state in
            guard !state.isClosed, state.held + count <= limit, budget.reserve(count) else { return false }
            state.held += count
            if state.unfinishedSince == nil { state.unfinishedSince = now }
            return true
        }
    }

    /// A whole message arrived: no byte is waiting to become part of one.
    func messageCompleted() {
        state.withLockedValue { $0.unfinishedSince = nil }
    }

    /// A message of `count` payload bytes was handled; `idle`: nothing is
    /// queued or half-received, so every byte still counted is given back.
    func handled(_ count: Int, idle: Bool) {
        state.withLockedValue { state in
            let given = idle ? state.held : min(count, state.held)
            state.held -= given
            budget.release(given)
        }
    }

    /// Gives back everything counted when it is at most `slack` bytes.
    func forgive(upTo slack: Int) {
        state.withLockedValue { state in
            guard state.held <= slack else { return }
            budget.release(state.held)
            state.held = 0
            state.unfinishedSince = nil
        }
    }

    /// When the oldest byte not yet part of a whole message arrived, if any.
    var unfinishedSince: NIODeadline? { state.withLockedValue { $0.unfinishedSince } }

    /// The connection is gone: gives everything back and counts nothing more.
    func close() {
        state.withLockedValue { state in
            budget.release(state.held)
            state.held = 0
            state.isClosed = true
        }
    }
}

import NIOConcurrencyHelpers

/// Values sent to any number of `AsyncStream` subscribers, each getting
/// every value sent after it subscribed (newest `bufferLimit` kept for a
/// slow reader). Finishing ends every stream, and later subscribers' at once.
final class Broadcast<Value: Sendable>: Sendable {
    private struct State {
        var subscribers: [UInt64: AsyncStream<Value>.Continuation] = [:]
        var nextToken: UInt64 = 0
        var finished = false
    }

    private let state = NIOLockedValueBox(State())
    private let bufferLimit: Int

    init(bufferLimit: Int = 1024) {
        self.bufferLimit = bufferLimit
    }

    /// A stream of the values sent from now on, after `initial` when given.
    func subscribe(startingWith initial: Value? = nil) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        if let initial { continuation.yield(initial) }
        let token = state.withLockedValue { state -> UInt64? in
            guard !state.finished else { return nil }
            state.nextToken += 1
            state.subscribers[state.nextToken] = continuation
            return state.nextToken
        }
        guard let token else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0.subscribers.removeValue(forKey: token) }
        }
        return stream
    }

    func send(_ value: Value) {
        for continuation in state.withLockedValue({ Array($0.subscribers.values) }) { continuation.yield(value) }
    }

    func finish() {
        let continuations = state.withLockedValue { state -> [AsyncStream<Value>.Continuation] in
            state.finished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}

import HummingbirdCore
import Logging
import NIOCore

/// A server child channel whose every connection starts with a
/// ``ConnectionGate`` in front of what `inner` sets up (HTTP, then the
/// WebSocket after the upgrade), so that the gate sees the connection from
/// its first byte to its close.
struct GatedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    /// A new gate for each connection.
    let makeGate: @Sendable () -> ConnectionGate

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(makeGate(), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

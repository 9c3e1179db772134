import Foundation

extension Document {
    /// The changes this document holds whose dependencies have not arrived
    /// (Rust's queue of changes waiting to apply): how many, and their bytes.
    @_spi(Storage)
    public var queuedChanges: (count: Int, bytes: Int) {
        locked { state in (state.queue.count, state.queue.reduce(0) { $0 + $1.bytes.count }) }
    }

    /// Takes the changes waiting for their dependencies out of the
    /// document and returns their chunks, in the order received. A server
    /// that must not store (or keep in a shared copy) what a peer sent
    /// ahead of its history holds them itself and applies them again later
    /// (``applyEncodedChanges(encoded:)``).
    @_spi(Storage)
    public func takeQueuedChanges() -> [[UInt8]] {
        locked { state in
            let chunks = state.queue.map(\.bytes)
            state.queue = ChangeQueue()
            return chunks
        }
    }
}

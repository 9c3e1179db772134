import Dispatch

/// Blocking calls made from async code (SQLite transactions, reads and
/// writes of attachment files, writes to a pipe), run one at a time in the
/// order made on a Dispatch queue of their own: Swift's cooperative
/// threads, one per core, must never wait on the disk or on another writer.
struct BlockingQueue: Sendable {
    private let queue: DispatchQueue

    /// A queue whose thread shows as `label` in debuggers.
    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// The result of `body`, run on the queue after every call made before it.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}

import Foundation

/// Runs `body`, which blocks (on a socket, a pipe, a child process), on a
/// thread of its own and suspends the caller until it returns.
///
/// Swift's cooperative pool has one thread per core: two on a small CI
/// machine. A test that blocks one of them while an in-process server waits
/// for the other starves that server (its keep-alive pings, its replies)
/// and fails for a reason that has nothing to do with what it tests. Every
/// blocking wait in the tests goes through here.
public func blockingWork<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Swift.Result { try body() }) }
        thread.name = "blocking test work"
        thread.start()
    }
}

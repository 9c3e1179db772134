import Automerge

/// What a caller of ``RepoClient`` waits for.
enum WaitCondition: Hashable {
    /// The handshake with the server is done.
    case connected
    /// The document is here.
    case available(DocumentId)
    /// The server has told the client it holds every change of the document.
    case serverHasOurChanges(DocumentId)
}

/// The callers waiting on a ``RepoClient``, each resumed once: when its
/// condition holds, with an error, or at its time limit.
struct Waiters {
    private struct Waiter {
        let condition: WaitCondition
        let continuation: CheckedContinuation<Void, any Error>
        let timer: Task<Void, Never>
    }

    private var waiting: [UInt64: Waiter] = [:]
    private var nextToken: UInt64 = 0

    mutating func newToken() -> UInt64 {
        nextToken += 1
        return nextToken
    }

    mutating func add(_ token: UInt64, _ condition: WaitCondition, _ continuation: CheckedContinuation<Void, any Error>,
                      timer: Task<Void, Never>)
    {
        waiting[token] = Waiter(condition: condition, continuation: continuation, timer: timer)
    }

    /// Resumes the callers whose condition `holds` says is met.
    mutating func resolve(where holds: (WaitCondition) -> Bool) {
        for (token, waiter) in waiting where holds(waiter.condition) {
            waiting[token] = nil
            waiter.timer.cancel()
            waiter.continuation.resume()
        }
    }

    /// Fails the callers whose condition `matches` with `error`.
    mutating func fail(with error: RepoError, where matches: (WaitCondition) -> Bool) {
        for (token, waiter) in waiting where matches(waiter.condition) {
            waiting[token] = nil
            waiter.timer.cancel()
            waiter.continuation.resume(throwing: error)
        }
    }

    mutating func failAll(with error: RepoError) { fail(with: error) { _ in true } }

    mutating func expire(_ token: UInt64) {
        guard let waiter = waiting.removeValue(forKey: token) else { return }
        waiter.continuation.resume(throwing: RepoError.timedOut)
    }
}

extension RepoClient {
    /// Waits until `condition` is resolved, or fails with ``RepoError/timedOut`` after `timeout`.
    func wait(for condition: WaitCondition, timeout: Duration) async throws {
        let token = waiters.newToken()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let timer = Task { [weak self] in
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                await self?.expireWaiter(token)
            }
            waiters.add(token, condition, continuation, timer: timer)
        }
    }

    func expireWaiter(_ token: UInt64) { waiters.expire(token) }
}

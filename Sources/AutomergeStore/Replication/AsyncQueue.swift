import Foundation

/// An unbounded first-in first-out queue between threads and tasks: any
/// number of producers push; one consumer awaits the next element, or all
/// that are there. Finishing it (with or without an error) ends the
/// consumer's wait once the elements before are taken.
final class AsyncQueue<Element: Sendable>: @unchecked Sendable {
    // @unchecked: every stored var is read and written only under `lock`.
    private let lock = NSLock()
    private var elements: [Element] = []
    private var head = 0
    private var ending: Result<Void, Error>?
    private var waiter: CheckedContinuation<Void, Never>?

    /// Adds an element (ignored once finished).
    func push(_ element: Element) {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard ending == nil else { return nil }
            elements.append(element)
            return takeWaiter()
        }
        waiter?.resume()
    }

    /// Ends the queue: the consumer gets what is queued, then nil (or `error`).
    func finish(throwing error: Error? = nil) {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard ending == nil else { return nil }
            ending = error.map { .failure($0) } ?? .success(())
            return takeWaiter()
        }
        waiter?.resume()
    }

    /// The next element; nil once finished and empty.
    func next() async throws -> Element? {
        try await nextBatch(limit: 1).first
    }

    /// Every element queued (at most `limit`), waiting for one when there
    /// are none; empty once finished and empty. Throws the finishing error,
    /// or `CancellationError` when the waiting task is cancelled.
    func nextBatch(limit: Int = .max) async throws -> [Element] {
        while true {
            try Task.checkCancellation()
            let taken = try lock.withLock { () throws -> [Element]? in
                if head < elements.count {
                    let end = head + min(limit, elements.count - head)
                    let batch = Array(elements[head..<end])
                    head = end
                    if head == elements.count || head > 4096 {
                        elements.removeFirst(head)
                        head = 0
                    }
                    return batch
                }
                switch ending {
                case .failure(let error)?: throw error
                case .success?: return []
                case nil: return nil
                }
            }
            if let taken { return taken }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = lock.withLock { () -> Bool in
                        if head < elements.count || ending != nil || Task.isCancelled { return true }
                        waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                lock.withLock { takeWaiter() }?.resume()
            }
        }
    }

    /// The waiting consumer, removed (call with the lock held).
    private func takeWaiter() -> CheckedContinuation<Void, Never>? {
        defer { waiter = nil }
        return waiter
    }
}

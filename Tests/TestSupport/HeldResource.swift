import Dispatch
import Foundation

/// Something held on a thread of its own (SQLite's writer, a lock) from
/// creation until ``release()``, or for `limit` at most (long enough for a
/// loaded CI machine to do what the test does meanwhile), to show that code
/// which must wait for it does not hold Swift's cooperative threads while
/// it waits: had it held them, the test could not have reached
/// ``release()`` before the holder gave up.
public final class HeldResource: Sendable {
    private let released = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let gaveUp = ManagedFlag()

    /// Runs `hold` on a new thread and returns once it holds: `hold` takes
    /// the resource, calls the function it is given (which returns once
    /// released, or after `limit`), and then lets the resource go.
    public init(limit: DispatchTimeInterval = .seconds(60), _ hold: @escaping @Sendable (_ wait: () -> Void) -> Void) {
        let holding = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [released, finished, gaveUp] in
            hold {
                holding.signal()
                if released.wait(timeout: .now() + limit) == .timedOut { gaveUp.set() }
            }
            finished.signal()
        }
        holding.wait()
    }

    /// Lets the resource go and waits until it is; false when the holder
    /// had already given up waiting.
    public func release() async -> Bool {
        released.signal()
        try? await blockingWork { [finished] in finished.wait() }
        return !gaveUp.isSet
    }
}

private final class ManagedFlag: @unchecked Sendable {
    // @unchecked: `value` is read and written only under `lock`.
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock on a pthread mutex.
///
/// The library uses it instead of `NSLock` so that on Linux it needs only
/// FoundationEssentials (for `Data` and `Date`), not the whole of Foundation
/// with its ICU data: a process that links Foundation starts with about
/// 7 MB more resident memory.
final class Lock: @unchecked Sendable {
    // A pthread mutex must not move, so it lives in its own allocation.
    fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }

    func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` holding the lock.
    @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A pthread condition variable, waited on holding a ``Lock``: for a thread
/// that waits until another has done something (see ``OpRowFeed``).
final class Condition: @unchecked Sendable {
    // Like the mutex, a pthread condition must not move.
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        let result = pthread_cond_init(condition, nil)
        precondition(result == 0, "pthread_cond_init failed: \(result)")
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
    }

    /// Releases `lock`, which the caller holds, until a ``signal()`` (or a
    /// spurious wake-up: check what was waited for again), then takes it back.
    func wait(holding lock: Lock) { pthread_cond_wait(condition, lock.mutex) }

    /// Wakes a thread waiting on the condition, if any.
    func signal() { pthread_cond_signal(condition) }
}

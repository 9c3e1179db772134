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
/// with its ICU data, which a process that links it keeps resident.
final class Lock: @unchecked Sendable {
    fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .pthreadObject(pthread_mutex_t(), name: "pthread_mutex_init") { pthread_mutex_init($0, nil) }
    }

    deinit {
        mutex.releasePthreadObject { pthread_mutex_destroy($0) }
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
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        condition = .pthreadObject(pthread_cond_t(), name: "pthread_cond_init") { pthread_cond_init($0, nil) }
    }

    deinit {
        condition.releasePthreadObject { pthread_cond_destroy($0) }
    }

    /// Releases `lock`, which the caller holds, until a ``signal()`` (or a
    /// spurious wake-up: check what was waited for again), then takes it back.
    func wait(holding lock: Lock) { pthread_cond_wait(condition, lock.mutex) }

    /// Wakes a thread waiting on the condition, if any.
    func signal() { pthread_cond_signal(condition) }
}

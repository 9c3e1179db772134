#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex with a condition variable, for threads that wait until
/// another one has changed the state the mutex guards.
///
/// On pthreads rather than `NSCondition` for the reason ``Lock`` gives: the
/// library needs only FoundationEssentials on Linux.
final class ConditionLock: @unchecked Sendable {
    // Neither a mutex nor a condition may move, so each has its own allocation.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        let mutexResult = pthread_mutex_init(mutex, nil)
        precondition(mutexResult == 0, "pthread_mutex_init failed: \(mutexResult)")
        let conditionResult = pthread_cond_init(condition, nil)
        precondition(conditionResult == 0, "pthread_cond_init failed: \(conditionResult)")
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deinitialize(count: 1)
        condition.deallocate()
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }

    func unlock() { pthread_mutex_unlock(mutex) }

    /// Releases the lock until another thread calls ``broadcast()``, then
    /// takes it again. The caller holds the lock and rechecks its condition
    /// after waking (wake-ups can be spurious).
    func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes every thread waiting in ``wait()``. Called holding the lock.
    func broadcast() { pthread_cond_broadcast(condition) }

    /// Runs `body` holding the lock.
    @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

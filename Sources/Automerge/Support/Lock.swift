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
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .pthreadObject(pthread_mutex_t(), "pthread_mutex_init") { pthread_mutex_init($0, nil) }
    }

    deinit { mutex.freePthreadObject { pthread_mutex_destroy($0) } }

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

extension UnsafeMutablePointer {
    /// A pthread object (a mutex) in its own allocation, since
    /// it must not move, set up by `initialize` (`what` names it if that fails).
    fileprivate static func pthreadObject(_ empty: Pointee, _ what: StaticString,
                                          initialize: (Self) -> Int32) -> Self {
        let object = Self.allocate(capacity: 1)
        object.initialize(to: empty)
        let result = initialize(object)
        precondition(result == 0, "\(what) failed: \(result)")
        return object
    }

    /// Tears down with `destroy` and frees an object from ``pthreadObject(_:_:initialize:)``.
    fileprivate func freePthreadObject(destroy: (Self) -> Int32) {
        _ = destroy(self)
        deinitialize(count: 1)
        deallocate()
    }
}

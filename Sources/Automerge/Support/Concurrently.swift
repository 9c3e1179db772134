import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Two independent pieces of work run at the same time, each on its own core
/// when the machine has more than one (Dispatch runs them one after the
/// other when it has one).
///
/// For work that only reads the same immutable input: the caller blocks
/// until both are done, so the API stays synchronous and nothing escapes.
enum Concurrently {
    /// Runs `first` and `second` at once and returns both results. `first`
    /// runs on the calling thread, `second` on a worker (or after `first`,
    /// on the calling thread, when no worker is free). `second` may wait
    /// for what `first` produces (``OpRowFeed``): it never runs before
    /// `first` on one thread, and when Dispatch gives the calling thread
    /// neither piece, the worker that does not run `second` runs `first`.
    ///
    /// Which thread runs which matters for memory: glibc gives each thread
    /// its own heap, and returns the free memory at the top of a worker's
    /// heap to the system only on a `free` past a trim threshold that grows
    /// with the largest block the process has freed (`malloc_trim` leaves
    /// it alone). A load that built the document on the calling thread and
    /// rebuilt its changes on a worker kept the rebuild's freed 5 MB
    /// resident in 3 of 20 runs (34.6 MB instead of 29.4 for the trace); the
    /// work that frees the most belongs on the calling thread.
    static func run<A, B>(_ first: () -> A, _ second: () -> B) -> (A, B) {
        let results = Results<A, B>()
        let caller = pthread_self()
        let claims = Claims()
        withoutActuallyEscaping(first) { first in
            withoutActuallyEscaping(second) { second in
                let work = Work(first: first, second: second)
                // Dispatch decides which iterations the calling thread runs
                // (under load, possibly none), so each participant claims a
                // piece instead: the calling thread `first`, then `second`
                // if still free; a worker only `second`. Each slot is
                // written by one participant and read only after
                // concurrentPerform has returned.
                DispatchQueue.concurrentPerform(iterations: 2) { _ in
                    if pthread_equal(pthread_self(), caller) != 0, claims.claim(.first) {
                        results.first = work.first()
                    } else if claims.claim(.second) {
                        results.second = work.second()
                    } else if claims.claim(.first) {
                        // Both iterations on workers: left to the caller
                        // until they return, `first` would never feed a
                        // `second` waiting for it.
                        results.first = work.first()
                    }
                }
                // Not reached, as each iteration claims a piece; kept as the caller's last resort.
                if results.first == nil { results.first = work.first() }
            }
        }
        guard let first = results.first, let second = results.second else {
            preconditionFailure("concurrentPerform returned before running both halves")
        }
        return (first, second)
    }

    /// Runs `first` on the calling thread and `second` on a thread of its
    /// own, and returns both results (both on the calling thread if no
    /// thread can be started).
    ///
    /// For work nested in ``run(_:_:)``: Dispatch runs a `concurrentPerform`
    /// inside another one's iteration serially (the width is shared out
    /// among the nesting levels), so a second level of parallel work needs
    /// a thread that Dispatch does not count.
    static func runOnNewThread<A, B>(_ first: () -> A, _ second: () -> B) -> (A, B) {
        let results = Results<A, B>()
        withoutActuallyEscaping(second) { second in
            let work = ThreadWork { results.second = second() }
            let context = Unmanaged.passRetained(work).toOpaque()
            #if canImport(Darwin)
            var thread: pthread_t?
            #else
            var thread = pthread_t()
            #endif
            let started = pthread_create(&thread, nil, { context in
                #if canImport(Darwin)
                Unmanaged<ThreadWork>.fromOpaque(context).takeRetainedValue().body()
                #else
                Unmanaged<ThreadWork>.fromOpaque(context!).takeRetainedValue().body()
                #endif
                return nil
            }, context) == 0
            if !started {
                Unmanaged<ThreadWork>.fromOpaque(context).release()
                work.body()
            }
            results.first = first()
            #if canImport(Darwin)
            if started, let thread { pthread_join(thread, nil) }
            #else
            if started { pthread_join(thread, nil) }
            #endif
        }
        guard let first = results.first, let second = results.second else {
            preconditionFailure("a piece of work did not run")
        }
        return (first, second)
    }

    /// The work a thread of its own runs (its result goes to a ``Results``
    /// that the caller reads after the join).
    private final class ThreadWork: @unchecked Sendable {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Which of the two pieces of work has been taken.
    private final class Claims: @unchecked Sendable {
        private let lock = Lock()
        private var taken: Set<Piece> = []

        enum Piece { case first, second }

        /// Takes `piece` if it is free; true when it did.
        func claim(_ piece: Piece) -> Bool {
            lock.withLock { taken.insert(piece).inserted }
        }
    }

    /// The two closures, handed to Dispatch's workers; sound to share
    /// because the caller waits for both.
    private struct Work<A, B>: @unchecked Sendable {
        let first: () -> A
        let second: () -> B
    }

    private final class Results<A, B>: @unchecked Sendable {
        var first: A?
        var second: B?
    }
}

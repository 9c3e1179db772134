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
/// Where ``ExecutionPolicy/current`` uses no other threads, both run on
/// the calling thread, `first` then `second`.
enum Concurrently {
    /// Runs `first` and `second` at once and returns both results. `first`
    /// always runs on the calling thread; `second` on a Dispatch worker, or,
    /// if no worker has taken it by the time `first` is done, on the
    /// calling thread after `first`. `second` may wait for what `first`
    /// produces (``OpRowFeed``): it never runs before `first` on one
    /// thread, and never waits for a worker that is not coming (the caller
    /// takes it back), so a pool of busy workers cannot deadlock it.
    ///
    /// Which thread runs which matters for memory: glibc gives each thread
    /// its own heap, and returns the free memory at the top of a worker's
    /// heap to the system only on a `free` past a trim threshold that grows
    /// with the largest block the process has freed (`malloc_trim` leaves
    /// it alone). A load that rebuilt its changes on a worker sometimes
    /// kept the rebuild's freed memory resident: the work that frees the
    /// most belongs on the calling thread.
    /// (`DispatchQueue.concurrentPerform` decides which iterations the
    /// calling thread runs, under load none: `first` then ran on a worker
    /// in up to half the calls.)
    static func run<A, B>(_ first: () -> A, _ second: () -> B) -> (A, B) {
        guard ExecutionPolicy.current.usesOtherThreads else { return inTurn(first, second) }
        let results = Results<A, B>()
        withoutActuallyEscaping(second) { second in
            let handoff = Handoff { results.second = second() }
            DispatchQueue.global().async { handoff.runUnlessTaken() }
            results.first = first()
            handoff.runUnlessTaken()
            handoff.waitAndRelease()
        }
        guard let first = results.first, let second = results.second else {
            preconditionFailure("a piece of work did not run")
        }
        return (first, second)
    }

    /// The second piece of work of ``run(_:_:)``, run once by whichever of
    /// the worker and the caller takes it first.
    private final class Handoff: @unchecked Sendable {  // every field behind `lock`
        private let lock = Lock()
        private let finished = Condition()
        private var body: (() -> Void)?
        private var taken = false
        private var done = false

        init(_ body: @escaping () -> Void) { self.body = body }

        /// Runs the work if nobody took it yet.
        func runUnlessTaken() {
            var work: (() -> Void)? = lock.withLock {
                guard !taken else { return nil }
                taken = true
                return body
            }
            guard work != nil else { return }
            work!()
            // Let go of the closure before telling the caller: it may not
            // outlive the caller's `withoutActuallyEscaping`.
            work = nil
            lock.withLock {
                done = true
                finished.signal()
            }
        }

        /// Waits until the work has run, then lets go of it.
        func waitAndRelease() {
            lock.withLock {
                while !done { finished.wait(holding: lock) }
                body = nil
            }
        }
    }

    /// Runs `first` on the calling thread and `second` on a thread of its
    /// own, and returns both results (both on the calling thread, `first`
    /// then `second`, if no thread can be started).
    ///
    /// For work nested in ``run(_:_:)``: Dispatch lends about as many
    /// workers as there are cores, and one already runs the outer `second`,
    /// so a nested ``run(_:_:)`` usually finds none free and its caller
    /// takes its second piece back, running both one after the other. A
    /// second level of parallel work needs a thread that Dispatch does not
    /// count.
    static func runOnNewThread<A, B>(_ first: () -> A, _ second: () -> B) -> (A, B) {
        guard ExecutionPolicy.current.usesOtherThreads else { return inTurn(first, second) }
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
            if !started { Unmanaged<ThreadWork>.fromOpaque(context).release() }
            results.first = first()
            if !started { work.body() }
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

    /// `first`, then `second`, on the calling thread.
    private static func inTurn<A, B>(_ first: () -> A, _ second: () -> B) -> (A, B) {
        let a = first()
        return (a, second())
    }

    /// The work a thread of its own runs (its result goes to a ``Results``
    /// that the caller reads after the join).
    private final class ThreadWork: @unchecked Sendable {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    private final class Results<A, B>: @unchecked Sendable {
        var first: A?
        var second: B?
    }
}

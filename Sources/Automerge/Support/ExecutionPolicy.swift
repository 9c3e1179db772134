/// How the library may use threads and the heap beyond the thread that
/// calls it: the host's choice, not the library's.
///
/// By default (``parallel``) large loads, saves and merges split their
/// work between the calling thread and one more (a Dispatch worker, or a
/// thread of their own for nested work), large intermediate values are
/// freed on a Dispatch worker after a call returns, and a large load gives
/// the heap it freed back to the system (`malloc_trim`, with glibc only).
/// A host that decides itself how many threads run, and at which priority
/// (a server whose bulk work runs on a few low-priority threads: a
/// Dispatch worker would run that work at normal priority), turns these
/// off, for the whole process with ``processDefault`` or for the calls
/// made inside `withPolicy(_:operation:)`. Every policy gives
/// identical documents, bytes and patches; only where and when the work
/// runs differs.
public struct ExecutionPolicy: Sendable, Hashable {
    /// Whether work may run on threads other than the caller's. When false,
    /// the pieces of a call run on the calling thread, one after another.
    public var usesOtherThreads: Bool
    /// Whether large values a call no longer needs may be freed on a
    /// Dispatch worker after the call returns (when false, the call frees
    /// them before it returns).
    public var releasesInBackground: Bool
    /// Whether a load of a large document gives the heap it freed back to
    /// the system (`malloc_trim`, which takes each of glibc's arenas' locks
    /// in turn). No effect with other allocators.
    public var trimsHeapAfterLoads: Bool

    /// A policy; by default the library's own, ``parallel``.
    public init(usesOtherThreads: Bool = true, releasesInBackground: Bool = true, trimsHeapAfterLoads: Bool = true) {
        self.usesOtherThreads = usesOtherThreads
        self.releasesInBackground = releasesInBackground
        self.trimsHeapAfterLoads = trimsHeapAfterLoads
    }

    /// Work on a second core, frees in the background, heap trimmed after
    /// large loads: the default.
    public static let parallel = ExecutionPolicy()

    /// Every piece of work on the calling thread, and nothing left to run
    /// after a call returns; the heap is still trimmed after large loads.
    public static let singleThreaded = ExecutionPolicy(usesOtherThreads: false, releasesInBackground: false)

    /// The policy of every call not made inside
    /// `withPolicy(_:operation:)`. Set it at start, before
    /// documents are used; a change applies to the calls that begin after it.
    public static var processDefault: ExecutionPolicy {
        get { defaultLock.withLock { storedDefault } }
        set { defaultLock.withLock { storedDefault = newValue } }
    }

    /// The policy in effect for a call made here: the innermost
    /// `withPolicy(_:operation:)` around it, else ``processDefault``.
    public static var current: ExecutionPolicy { scoped ?? processDefault }

    /// Runs `operation` with `policy` for every call it makes on this
    /// thread (or in this task), and returns its result.
    public static func withPolicy<R>(_ policy: ExecutionPolicy, operation: () throws -> R) rethrows -> R {
        try $scoped.withValue(policy, operation: operation)
    }

    /// Runs `operation` with `policy` for every call it makes in this task,
    /// and returns its result.
    public static func withPolicy<R>(_ policy: ExecutionPolicy, operation: () async throws -> R) async rethrows -> R {
        try await $scoped.withValue(policy, operation: operation)
    }

    /// The policy set by the innermost `withPolicy` (a task-local value:
    /// bound to the thread where there is no task).
    @TaskLocal private static var scoped: ExecutionPolicy?

    private static let defaultLock = Lock()
    nonisolated(unsafe) private static var storedDefault = ExecutionPolicy.parallel  // read and written under `defaultLock`
}

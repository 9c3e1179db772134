#if canImport(Glibc)
import CSystemHeap
#endif

/// Giving the heap a large load freed back to the system.
///
/// A load builds transient structures several times the document's size
/// (decoded columns, the changes rebuilt from a document chunk) and frees
/// them once the document is built. glibc returns freed memory to the
/// system only from the top of an arena (a thread's heap), and what a load
/// keeps is allocated last, above what it frees; memory that work on a
/// second core freed stays with that core's arena: after a large load the
/// process could hold about as much freed heap as the document uses.
/// `malloc_trim` gives those pages back, in time that grows with what it
/// returns and is negligible when there is nothing to return, so it runs
/// only after loads of at least ``loadThreshold`` bytes. Other allocators
/// (Darwin's, musl's) are left alone.
enum FreedMemory {
    /// The smallest input after whose load the freed heap is returned.
    static let loadThreshold = 64 * 1024

    /// Returns the heap's free pages to the system if `inputBytes` (the
    /// size of what was loaded) is at least ``loadThreshold`` and the
    /// ``ExecutionPolicy`` trims.
    static func returnToSystem(afterLoading inputBytes: Int) {
        #if canImport(Glibc)
        if inputBytes >= loadThreshold, ExecutionPolicy.current.trimsHeapAfterLoads { _ = malloc_trim(0) }
        #endif
    }
}

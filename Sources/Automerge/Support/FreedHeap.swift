#if canImport(Glibc)
import CSystemHeap
#endif

/// Gives the system back the heap a large load has freed.
///
/// A load builds transient structures several times the document's size
/// (the reconstructed changes of a document chunk, decoded columns) and
/// frees them once the document is built. glibc keeps freed memory that
/// lies below blocks still in use, and what a load keeps is allocated
/// last: after loading a 262k-change history the process held 126 MB of
/// freed heap beside the 110 MB the document uses (the figures of
/// docs/performance.md, "Memory of a loaded document"). `malloc_trim`
/// returns those pages. It costs about a millisecond for a document of a
/// few hundred kilobytes and 40 ms for that history (the pages it gives
/// back), and tens of microseconds when there is nothing to return, so it
/// runs only after loads of at least ``loadThreshold`` bytes. Other
/// allocators (Darwin's, musl's) are left alone.
enum FreedHeap {
    /// The smallest input after whose load the freed heap is returned.
    static let loadThreshold = 64 * 1024

    /// Returns the freed heap to the system if `inputBytes` (the size of
    /// what was loaded) is at least ``loadThreshold``.
    static func release(afterLoading inputBytes: Int) {
        #if canImport(Glibc)
        if inputBytes >= loadThreshold { _ = malloc_trim(0) }
        #endif
    }
}

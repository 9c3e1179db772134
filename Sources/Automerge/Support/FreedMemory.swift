#if canImport(Glibc)
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
#endif

/// Giving freed heap memory back to the system.
enum FreedMemory {
    /// Returns the heap's free pages to the system (glibc's `malloc_trim`;
    /// nothing elsewhere).
    ///
    /// glibc gives a thread's allocator arena back to the system only from
    /// its top, so memory that work on a second core allocated and freed
    /// stays resident, for reuse by that arena only. A load that rebuilt a
    /// large document's changes on a second core left 8 MB of the trace
    /// document's rebuild resident (37.7 MB after the load instead of
    /// 29.5); trimming costs a few milliseconds of that load, which is
    /// still 15-20% faster than on one core.
    static func returnToSystem() {
        #if canImport(Glibc)
        _ = glibcMallocTrim(0)
        #endif
    }
}

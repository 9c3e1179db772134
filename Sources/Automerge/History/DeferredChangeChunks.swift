/// The change chunks of a loaded document chunk, rebuilt from it the first
/// time one is asked for.
///
/// A load rebuilds every change of a document chunk to hash it, and the
/// history keeps only the hashes and metadata: the chunks themselves are
/// needed again only by sync, `encodeChangesSince`, `forkAt`, merges into
/// other documents and `change(for:)`, and most loaded documents never
/// do any of these. Keeping them cost as much memory as the op set
/// (moby-dick: 1.5 MB of chunks, a 262k-change history 40 MB); the stored
/// document chunk they come from is smaller (its columns as the file
/// had them, usually deflated) and rebuilds them in one pass. Rust 0.11
/// keeps no change bytes either: it encodes them from its op set on each
/// request.
///
/// Shared by the copies of a history (forks), which read the same chunks;
/// the rebuild happens once, under a lock.
final class DeferredChangeChunks: @unchecked Sendable {
    /// Where the rebuilt chunks are: a byte store, and each change's span in it.
    struct Rebuilt: Sendable {
        var store: ChangeByteStore
        var spans: [(location: ChangeByteStore.Location, byteCount: Int)]
    }

    /// How many changes (the first records of the history) are deferred.
    let count: Int
    private let lock = Lock()
    /// The rebuild, until it has run (it holds the stored document chunk),
    /// given each deferred change's hash by its index.
    private var rebuild: (@Sendable ((Int) -> ChangeHash) -> Rebuilt)?
    private var rebuilt: Rebuilt?
    /// The heap bytes of the stored chunk the rebuild keeps.
    private let sourceByteCount: Int

    /// `count` changes that `rebuild` yields in record order, from a stored
    /// chunk of `sourceByteCount` bytes that it holds.
    init(count: Int, sourceByteCount: Int, rebuild: @escaping @Sendable ((Int) -> ChangeHash) -> Rebuilt) {
        self.count = count
        self.sourceByteCount = sourceByteCount
        self.rebuild = rebuild
    }

    /// The uncompressed change chunk of the deferred change at `index`;
    /// `hashAt` gives each deferred change's hash (for the rebuild).
    func chunk(at index: Int, hashAt: (Int) -> ChangeHash) -> ArraySlice<UInt8> {
        let rebuilt = lock.withLock { () -> Rebuilt in
            if let rebuilt = self.rebuilt { return rebuilt }
            let made = rebuild!(hashAt)
            precondition(made.spans.count == count, "a deferred document chunk rebuilds as many changes as it loaded")
            (self.rebuilt, rebuild) = (made, nil)
            return made
        }
        let span = rebuilt.spans[index]
        return rebuilt.store[span.location, count: span.byteCount]
    }

    /// The heap bytes held: the stored chunk, or the rebuilt chunks once built.
    var byteCount: Int {
        lock.withLock {
            guard let rebuilt else { return sourceByteCount }
            return rebuilt.store.byteCount + rebuilt.spans.capacity * MemoryLayout<(ChangeByteStore.Location, Int)>.stride
        }
    }
}

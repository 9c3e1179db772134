/// An array of trivial elements that one thread appends to while another
/// reads the elements already there (see ``OpRowFeed``): a value with
/// copy-on-write, like `Array`, whose storage stays in place while it is
/// followed.
///
/// `Array` cannot be followed: a pointer into its storage is valid only
/// inside `withUnsafeBufferPointer`, and a second reference to the storage
/// makes the next append copy it. Here a ``Follower`` holds the storage,
/// so it outlives the writer however the writer ends, and appends made
/// while it follows write in place past what it reads.
struct FollowableBuffer<Element: BitwiseCopyable>: RandomAccessCollection {
    fileprivate final class Storage {
        let base: UnsafeMutablePointer<Element>
        let capacity: Int
        /// How many elements the buffer holding the most has written: a
        /// buffer at that mark may append in place while followed, as no
        /// copy sees past its own count.
        var written = 0
        /// Set while a follower reads: the elements below ``written`` may
        /// then not be written again.
        var isFollowed = false

        init(capacity: Int) {
            self.capacity = Swift.max(capacity, 1)
            base = .allocate(capacity: self.capacity)
        }

        deinit { base.deallocate() }

        /// A storage of `capacity` holding the first `count` elements.
        func copy(count: Int, capacity: Int) -> Storage {
            let copy = Storage(capacity: Swift.max(capacity, count))
            copy.base.initialize(from: base, count: count)
            copy.written = count
            return copy
        }
    }

    private var storage: Storage
    /// This buffer's elements: the first `count` of the storage's.
    private(set) var count = 0

    init() { storage = Storage(capacity: 0) }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < count, "index out of range")
            return storage.base[position]
        }
        set {
            precondition(position >= 0 && position < count, "index out of range")
            makeUnique(capacity: storage.capacity)
            storage.base[position] = newValue
        }
    }

    /// Room for `capacity` elements in all, so that appends up to it do not move the storage.
    mutating func reserveCapacity(_ capacity: Int) {
        guard capacity > storage.capacity else { return }
        precondition(!storage.isFollowed, "a followed buffer may not move")
        storage = storage.copy(count: count, capacity: capacity)
    }

    @inline(__always)
    mutating func append(_ element: Element) {
        let inPlace = count < storage.capacity
            && (storage.isFollowed ? count == storage.written : isKnownUniquelyReferenced(&storage))
        if !inPlace {
            precondition(!storage.isFollowed || count != storage.written, "a followed buffer may not grow past its reserved capacity")
            storage = storage.copy(count: count, capacity: count < storage.capacity ? storage.capacity : 2 * storage.capacity)
        }
        (storage.base + count).initialize(to: element)
        count += 1
        storage.written = count
    }

    mutating func removeLast() -> Element {
        precondition(count > 0, "removeLast from an empty buffer")
        count -= 1
        return storage.base[count]
    }

    func withUnsafeBufferPointer<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<Element>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeBufferPointer(start: storage.base, count: count))
    }

    /// Makes the storage this buffer's alone, and not followed.
    private mutating func makeUnique(capacity: Int) {
        if storage.isFollowed || !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy(count: count, capacity: capacity)
        }
    }

    // MARK: Following

    /// A reader of the buffer on another thread. It may read the first
    /// `n` elements once the writer has told it (through a lock) that it
    /// has appended them.
    struct Follower: @unchecked Sendable {
        fileprivate let storage: Storage

        /// The first `count` elements.
        func prefix(_ count: Int) -> UnsafeBufferPointer<Element> {
            precondition(count >= 0 && count <= storage.capacity, "a follower reads past the storage")
            return UnsafeBufferPointer(start: storage.base, count: count)
        }
    }

    /// Starts a follower: until ``endFollowing()``, this buffer appends in
    /// place up to its capacity though the follower holds the storage
    /// (one thread appends; other writes copy the storage first). Reserve
    /// the capacity first: an append past it moves the buffer to new
    /// storage the follower does not see.
    mutating func beginFollowing() -> Follower {
        makeUnique(capacity: storage.capacity)
        storage.isFollowed = true
        return Follower(storage: storage)
    }

    /// Ends following: writes follow copy-on-write again (the follower
    /// still holds the storage, so they copy it).
    mutating func endFollowing() { storage.isFollowed = false }
}

/// Like `Array`: a copy is never written to while another is read, but
/// through a ``FollowableBuffer/Follower`` (which reads only what it was told is written).
extension FollowableBuffer: @unchecked Sendable where Element: Sendable {}

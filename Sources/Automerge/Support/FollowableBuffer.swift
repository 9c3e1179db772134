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
        var base: UnsafeMutablePointer<Element>
        var count = 0
        var capacity: Int
        /// Set while a follower reads: the storage may then neither move
        /// nor be written below ``count``.
        var isFollowed = false

        init(capacity: Int) {
            self.capacity = Swift.max(capacity, 1)
            base = .allocate(capacity: self.capacity)
        }

        deinit { base.deallocate() }

        func copy(capacity: Int) -> Storage {
            let copy = Storage(capacity: Swift.max(capacity, count))
            copy.base.initialize(from: base, count: count)
            copy.count = count
            return copy
        }
    }

    private var storage: Storage

    init() { storage = Storage(capacity: 0) }

    var startIndex: Int { 0 }
    var endIndex: Int { storage.count }

    subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < storage.count, "index out of range")
            return storage.base[position]
        }
        set {
            precondition(position >= 0 && position < storage.count, "index out of range")
            makeUnique(capacity: storage.capacity)
            storage.base[position] = newValue
        }
    }

    /// Room for `capacity` elements in all, so that appends up to it do not move the storage.
    mutating func reserveCapacity(_ capacity: Int) {
        if capacity > storage.capacity { makeUnique(capacity: capacity, force: true) }
    }

    @inline(__always)
    mutating func append(_ element: Element) {
        if !storage.isFollowed && (storage.count == storage.capacity || !isKnownUniquelyReferenced(&storage)) {
            makeUnique(capacity: storage.count == storage.capacity ? storage.capacity * 2 : storage.capacity, force: true)
        }
        precondition(storage.count < storage.capacity, "a followed buffer may not grow past its reserved capacity")
        (storage.base + storage.count).initialize(to: element)
        storage.count += 1
    }

    mutating func removeLast() -> Element {
        precondition(storage.count > 0, "removeLast from an empty buffer")
        makeUnique(capacity: storage.capacity)
        storage.count -= 1
        return storage.base[storage.count]
    }

    func withUnsafeBufferPointer<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<Element>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeBufferPointer(start: storage.base, count: storage.count))
    }

    private mutating func makeUnique(capacity: Int, force: Bool = false) {
        precondition(!storage.isFollowed, "a followed buffer may only be appended to")
        if force || !isKnownUniquelyReferenced(&storage) { storage = storage.copy(capacity: capacity) }
    }

    // MARK: Following

    /// A reader of the buffer on another thread. It may read the first
    /// `n` elements once the writer has told it (through a lock) that it
    /// has appended them.
    struct Follower: @unchecked Sendable {
        fileprivate let storage: Storage

        /// The first `count` elements.
        func prefix(_ count: Int) -> UnsafeBufferPointer<Element> {
            UnsafeBufferPointer(start: storage.base, count: count)
        }
    }

    /// Starts a follower: until ``endFollowing()``, appends write in place
    /// and the buffer may not grow past its capacity, be written below its
    /// count or be copied into.
    mutating func beginFollowing() -> Follower {
        makeUnique(capacity: storage.capacity)
        storage.isFollowed = true
        return Follower(storage: storage)
    }

    /// Ends the writer's side of following: further writes copy the
    /// storage while the follower still holds it.
    mutating func endFollowing() { storage.isFollowed = false }
}

/// Like `Array`: a copy is never written to while another is read, but
/// through a ``FollowableBuffer/Follower`` (which reads only what it was told is written).
extension FollowableBuffer: @unchecked Sendable where Element: Sendable {}

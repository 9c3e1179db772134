/// The actors a document knows, in the order it learnt them.
///
/// Op ids compare as Automerge requires (counter, then actor bytes) without
/// remapping stored ids when a new actor arrives: ties on the counter
/// compare each actor's first eight bytes, kept as one big-endian integer
/// per actor, and only actors that share those compare the rest. Adding an
/// actor is O(1) amortised (a table kept in byte order would cost every new
/// actor a re-sort or a shift of the others: a file of one change chunk per
/// actor made that quadratic).
struct ActorTable: Sendable {
    private(set) var actors: [ActorId] = []
    private var indexOf: [ActorId: UInt32] = [:]
    /// orderKeys[i]: the first eight bytes of actors[i], big-endian, padded with zeros.
    private var orderKeys: [UInt64] = []
    /// The bytes of each actor (shared with `actors`), read for ties of the
    /// order keys without copying an `ActorId`, whose `Data` is copied
    /// through an opaque call.
    private var actorBytes: [[UInt8]] = []

    var count: Int { actors.count }

    subscript(index: UInt32) -> ActorId { actors[Int(index)] }

    /// Whether `actor` is the actor at `index` (which must be in range).
    @inline(__always)
    func has(_ actor: ActorId, at index: UInt32) -> Bool {
        actors.withUnsafeBufferPointer { $0[Int(index)].bytes == actor.bytes }
    }

    func index(of actor: ActorId) -> UInt32? {
        // Most documents have a handful of actors: comparing their bytes
        // (usually the very same buffer) beats hashing 16 bytes per edit.
        if actors.count <= 8 {
            for (index, known) in actors.enumerated() where known.bytes == actor.bytes { return UInt32(index) }
            return nil
        }
        return indexOf[actor]
    }

    /// The index of `actor`, adding it if new.
    mutating func intern(_ actor: ActorId) -> UInt32 {
        if let index = index(of: actor) { return index }
        let index = UInt32(actors.count)
        actors.append(actor)
        indexOf[actor] = index
        orderKeys.append(Self.orderKey(actor.bytes))
        actorBytes.append(actor.bytes)
        return index
    }

    /// Removes the actors from index `count` on: a refused receive takes
    /// back the actors its changes brought.
    mutating func removeActors(from count: Int) {
        guard count < actors.count else { return }
        for actor in actors[count...] { indexOf[actor] = nil }
        actors.removeSubrange(count...)
        orderKeys.removeSubrange(count...)
        actorBytes.removeSubrange(count...)
    }

    /// The indices of `newActors`, adding those that are new, with room made once.
    ///
    /// Room is made only past the current capacity, and then at least
    /// doubled: reserving exactly what each call needs reallocated (and
    /// rehashed) the whole table at every call, so a table fed a few actors
    /// at a time, as the canonical-form proofs are, grew quadratically.
    mutating func intern(contentsOf newActors: some Collection<ActorId>) -> [UInt32] {
        let needed = actors.count + newActors.count
        if needed > actors.capacity {
            let capacity = max(needed, 2 * actors.capacity)
            actors.reserveCapacity(capacity)
            orderKeys.reserveCapacity(capacity)
            actorBytes.reserveCapacity(capacity)
        }
        if needed > indexOf.capacity { indexOf.reserveCapacity(max(needed, 2 * indexOf.capacity)) }
        return newActors.map { intern($0) }
    }

    /// The heap bytes the table takes, estimated in constant time from its
    /// capacities: its four tables, and each actor's bytes in a heap block
    /// of their own (a header of 32 bytes; most actors have 16 bytes).
    var byteCount: Int {
        let entry = MemoryLayout<ActorId>.stride + MemoryLayout<UInt32>.stride
        return actors.capacity * MemoryLayout<ActorId>.stride + orderKeys.capacity * MemoryLayout<UInt64>.stride
            + actorBytes.capacity * MemoryLayout<[UInt8]>.stride + indexOf.capacity * entry
            + actors.count * Self.bytesBlock
    }

    /// The heap block of a typical actor's bytes: a 32-byte array header and 16 bytes.
    private static let bytesBlock = 48

    private static func orderKey(_ bytes: [UInt8]) -> UInt64 {
        var key: UInt64 = 0
        for position in 0..<8 { key = key << 8 | UInt64(position < bytes.count ? bytes[position] : 0) }
        return key
    }

    /// Automerge's op id order: counter first, then actor bytes.
    @inline(__always)
    func precedes(_ a: OpId, _ b: OpId) -> Bool {
        if a.counter != b.counter { return a.counter < b.counter }
        return actorPrecedes(a.actor, b.actor)
    }

    /// The lesser of `a` and `b` in op id order, either of which may be
    /// ``OpId/unset``; ``OpId/unset`` only if both are.
    func least(_ a: OpId, _ b: OpId) -> OpId {
        if a.isUnset { return b }
        if b.isUnset { return a }
        return precedes(b, a) ? b : a
    }

    /// Whether actor `a`'s bytes sort before actor `b`'s.
    @inline(__always)
    func actorPrecedes(_ a: UInt32, _ b: UInt32) -> Bool {
        let (keyA, keyB) = (orderKeys[Int(a)], orderKeys[Int(b)])
        if keyA != keyB { return keyA < keyB }
        return a != b && bytesPrecede(actorBytes[Int(a)], actorBytes[Int(b)])
    }

    /// Bytewise order, written out rather than calling the generic
    /// `lexicographicallyPrecedes`: an opaque call inside an insert's sibling
    /// scan made its callers copy the op set they read from.
    @inline(__always)
    private func bytesPrecede(_ x: [UInt8], _ y: [UInt8]) -> Bool {
        for index in 0..<min(x.count, y.count) where x[index] != y[index] { return x[index] < y[index] }
        return x.count < y.count
    }
}

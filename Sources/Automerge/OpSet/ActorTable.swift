/// The actors a document knows, in the order it learnt them, with the rank
/// of each in bytewise order so that op ids compare as Automerge requires
/// (counter, then actor bytes) without remapping stored ids when a new actor
/// arrives.
struct ActorTable: Sendable {
    private(set) var actors: [ActorId] = []
    private var indexOf: [ActorId: UInt32] = [:]
    /// rank[i] is the position of actors[i] in bytewise order.
    private(set) var rank: [UInt32] = []

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
        if let index = indexOf[actor] { return index }
        let index = UInt32(actors.count)
        actors.append(actor)
        indexOf[actor] = index
        let order = actors.indices.sorted { actors[$0] < actors[$1] }
        rank = [UInt32](repeating: 0, count: actors.count)
        for (position, actorIndex) in order.enumerated() { rank[actorIndex] = UInt32(position) }
        return index
    }

    /// Automerge's op id order: counter first, then actor bytes.
    @inline(__always)
    func precedes(_ a: OpId, _ b: OpId) -> Bool {
        if a.counter != b.counter { return a.counter < b.counter }
        return rank[Int(a.actor)] < rank[Int(b.actor)]
    }

    /// Actor indices sorted by actor bytes.
    var indicesInByteOrder: [UInt32] {
        var order = [UInt32](repeating: 0, count: actors.count)
        for (index, r) in rank.enumerated() { order[Int(r)] = UInt32(index) }
        return order
    }
}

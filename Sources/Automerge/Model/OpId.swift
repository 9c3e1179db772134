/// The id of an op inside one document: a Lamport counter and the index of
/// its actor in the document's ``ActorTable``.
///
/// Ids order by counter, then by actor *bytes*; because actor indices follow
/// arrival order, comparisons go through ``ActorTable/precedes(_:_:)``.
/// Counter 0 never names a real op: it stands for the root object and for
/// the HEAD of a sequence.
struct OpId: Hashable, Sendable {
    var counter: UInt32
    var actor: UInt32

    /// The root object, and the HEAD (start) of every sequence.
    static let root = OpId(counter: 0, actor: 0)

    var isRoot: Bool { counter == 0 }
}

extension OpId {
    /// No id: what a tree node with no elements records as its least
    /// id. No op has it (no actor table reaches UInt32.max actors).
    static let unset = OpId(counter: .max, actor: .max)

    var isUnset: Bool { self == .unset }
}

/// The largest op counter Automerge allows (Rust stores counters as u32).
let maxOpCounter = UInt64(UInt32.max)

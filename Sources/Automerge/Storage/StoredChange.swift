/// The contents of one change chunk, as the file format holds them.
///
/// Actor references inside ops are indices into ``actors``: index 0 is the
/// author, 1... are the other actors the ops mention, sorted bytewise.
/// This is the boundary between bytes and the CRDT: Storage turns bytes into
/// this value and back; the op set never sees the bytes.
struct StoredChange: Equatable, Sendable {
    /// Everything but the ops: the one type of a change's header fields,
    /// shared with ``PendingChange`` and the history.
    var header: ChangeHeader
    /// The ops, in order.
    var ops: [StoredOp]

    init(
        dependencies: [ChangeHash], actors: [ActorId], sequence: UInt64, startOp: UInt64, time: Int64,
        message: String?, ops: [StoredOp], extraBytes: [UInt8]
    ) {
        header = ChangeHeader(dependencies: dependencies, actors: actors, sequence: sequence, startOp: startOp, time: time,
                              message: message, extraBytes: extraBytes)
        self.ops = ops
    }

    // The header's fields, read and written in place, for the many readers
    // that name them on the change.
    var dependencies: [ChangeHash] {
        get { header.dependencies }
        _modify { yield &header.dependencies }
    }
    var actors: [ActorId] {
        get { header.actors }
        _modify { yield &header.actors }
    }
    var sequence: UInt64 {
        get { header.sequence }
        _modify { yield &header.sequence }
    }
    var startOp: UInt64 {
        get { header.startOp }
        _modify { yield &header.startOp }
    }
    var time: Int64 {
        get { header.time }
        _modify { yield &header.time }
    }
    var message: String? {
        get { header.message }
        _modify { yield &header.message }
    }
    var extraBytes: [UInt8] {
        get { header.extraBytes }
        _modify { yield &header.extraBytes }
    }

    /// The counter of the last op (startOp - 1 for an empty change).
    var maxOp: UInt64 { startOp + UInt64(ops.count) - 1 }
}

/// The fields of a change chunk other than its ops (see ``StoredChange``).
struct ChangeHeader: Equatable, Sendable {
    /// Hashes of the changes this one depends on, sorted bytewise.
    var dependencies: [ChangeHash]
    /// Author first, then the other actors the ops mention, sorted bytewise.
    var actors: [ActorId]
    /// The author's sequence number for this change (1, 2, 3, ...).
    var sequence: UInt64
    /// The counter of the first op (the op ids are startOp, startOp+1, ...).
    var startOp: UInt64
    /// The `time` field: milliseconds by the spec, seconds in some writers.
    var time: Int64
    /// The message, or nil when absent or empty.
    var message: String?
    /// Bytes after the op columns; kept and hashed verbatim.
    var extraBytes: [UInt8]
}

/// An op id as a file stores it: a counter and an index into an actor table.
struct StoredOpId: Hashable, Sendable {
    var counter: UInt64
    var actor: Int
}

extension StoredOpId {
    /// The stored form of an id whose actor index is a document's.
    init(_ id: OpId) { self.init(counter: UInt64(id.counter), actor: Int(id.actor)) }
}

/// One op row of a change or document chunk.
struct StoredOp: Equatable, Sendable {
    /// The object the op applies to; nil for the root map.
    var object: StoredOpId?
    /// The map key or list element the op targets.
    var key: StoredKey
    /// Whether the op inserts a new list element after `key`.
    var insert: Bool
    /// The action code (0...7 in valid input; see ``OpAction``).
    var action: UInt64
    /// The value column (the mark value for marks, the amount for increments).
    var value: Primitive
    /// In a change chunk: the predecessors, in the order stored. Empty in a document.
    var predecessors: StoredOpIdList
    /// In a document chunk: the op's id. Unused in a change chunk (ids are implicit).
    var id: StoredOpId?
    /// In a document chunk: the successors. Empty in a change chunk.
    var successors: StoredOpIdList
    /// The expand flag of mark ops.
    var expand: Bool
    /// The name of a mark begin op.
    var markName: String?
}

/// The key column of an op.
enum StoredKey: Hashable, Sendable {
    /// A map key.
    case map(String)
    /// A list element id; nil is HEAD (the start of the list).
    case element(StoredOpId?)
}

/// A document chunk, as stored.
struct StoredDocument: Equatable, Sendable {
    /// Every actor of the document, sorted bytewise when written.
    var actors: [ActorId]
    /// The heads, sorted bytewise.
    var heads: [ChangeHash]
    /// The change metadata rows, in change-graph order.
    var changes: [StoredChangeMetadata]
    /// The op rows: every op except deletes, objects in OpId order, with ids and successors.
    var ops: StoredOpRows
    /// For each head, the index of its change row (optional on load).
    var headsIndex: [Int]
}

/// One row of a document chunk's change columns.
struct StoredChangeMetadata: Equatable, Sendable {
    var actor: Int
    var sequence: UInt64
    var maxOp: UInt64
    var time: Int64
    var message: String?
    /// Indices of earlier rows, in the order of their hashes sorted bytewise
    /// (a slice of all rows' dependencies, when decoded).
    var dependencies: ArraySlice<Int>
    var extraBytes: [UInt8]

    /// A stored `message` as the change's own chunk holds it: a document
    /// may store an empty one, which a change writes as none. Static, for
    /// callers reading metadata in place: a property, called on an element
    /// of a buffer, copied the whole element (retaining its arrays).
    static func changeMessage(_ message: String?) -> String? { message?.isEmpty == false ? message : nil }
}

extension OpId {
    /// The id a decoded op id names; the column decoders have checked that
    /// its counter fits 32 bits and its actor index the actor table.
    init(_ stored: StoredOpId) {
        assert(stored.counter <= maxOpCounter && stored.actor >= 0 && stored.actor <= Int(UInt32.max), "unchecked stored op id")
        self.init(counter: UInt32(truncatingIfNeeded: stored.counter), actor: UInt32(truncatingIfNeeded: stored.actor))
    }
}

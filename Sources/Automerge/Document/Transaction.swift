/// The ops a document has made locally since its last commit. They are
/// already applied to the op set; committing turns them into a change.
///
/// Each op is kept as a ``PendingOp``: where in the op set it went, not its
/// fields, which the op set holds already (and never removes). A transaction
/// held a full 96-byte ``ChangeOp`` per op, the op set's copy beside it:
/// fresh pages for every op typed, and the copy's strings retained and
/// released once more. The commit reads
/// the ops back from the op set (``readBack(from:into:)``).
struct Transaction: Sendable {
    let actor: UInt32
    let sequence: UInt64
    let startOp: UInt64
    let dependencies: [ChangeHash]
    /// In chunks: an array of a million ops grown by doubling was a third of
    /// the time of typing them (see ``ChunkedList``). The op at position `i`
    /// has counter `startOp + i`.
    var ops = ChunkedList<PendingOp>()
    /// Op-set actor indices the ops mention (their objects, keys and
    /// predecessors): the change's actor table, noted as ops are made so
    /// that the commit reads each op back once.
    private(set) var mentionedActors = ActorFlags()
    /// The predecessors of the ops that overwrote something, by position:
    /// the commit takes them from here instead of searching the key's or
    /// element's ops for successors naming the op, which made a key
    /// overwritten n times in one transaction n² work.
    private(set) var predecessors: [Int: [OpId]] = [:]

    init(actor: UInt32, sequence: UInt64, startOp: UInt64, dependencies: [ChangeHash]) {
        self.actor = actor
        self.sequence = sequence
        self.startOp = startOp
        self.dependencies = dependencies
    }

    /// The id the next op will get.
    var nextCounter: UInt64 { startOp + UInt64(ops.count) }

    /// Records `op`, applied to the op set at `target`.
    mutating func append(_ op: borrowing ChangeOp, at target: PendingOp.Target) {
        mentionedActors.note(op)
        if !op.predecessors.isEmpty { predecessors[ops.count] = op.predecessors }
        ops.append(PendingOp(target: target, action: op.action))
    }

    /// Records an insert after `reference` into the sequence `object`, at
    /// `objectIndex` of the op set's object table (see
    /// ``OpSet/applyLocalInsert(objectAt:after:id:action:value:expand:markName:)``).
    mutating func appendInsert(object: OpId, objectIndex: Int, reference: OpId, action: OpAction) {
        mentionedActors.note(object)
        mentionedActors.note(reference)
        ops.append(PendingOp(target: .insertedElement(object: Int32(objectIndex), reference: reference), action: action))
    }

    /// Records a delete of `element`, whose one predecessor is the element's
    /// insert op, in the sequence `object` at `objectIndex` of the op set's
    /// object table (see ``OpSet/applyLocalDelete(of:objectAt:id:)``).
    mutating func appendElementDelete(object: OpId, objectIndex: Int, element: OpId) {
        mentionedActors.note(object)
        mentionedActors.note(element)
        ops.append(PendingOp(target: .element(object: Int32(objectIndex), element: element), action: .delete))
    }

    /// Records a value put that overwrote nothing into the map `object`, at
    /// `objectIndex` of the op set's object table, to the key at
    /// `keyPosition` of its key order (see
    /// ``OpSet/applyLocalMapSet(objectAt:key:hash:put:value:)``).
    mutating func appendMapSet(object: OpId, objectIndex: Int, keyPosition: Int) {
        mentionedActors.note(object)
        ops.append(PendingOp(target: .mapKey(object: Int32(objectIndex), key: Int32(keyPosition)), action: .set))
    }
}

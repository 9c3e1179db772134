#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything a ``Document`` holds, as a value: forking copies it.
struct DocumentState: Sendable {
    var ops: OpSet
    var history = ChangeGraph()
    var actor: ActorId
    var transaction: Transaction?
    /// Changes received before their dependencies, applied once those arrive.
    var queue = ChangeQueue()
    /// Heads at the last `save()` or `encodeNewChanges()`.
    var lastEncodedHeads: Set<ChangeHash> = []
    /// Whether received changes that put a mark's end anchor before its
    /// begin anchor are refused (always, but for building invalid vectors).
    var refusesMisorderedMarks = true

    init(actor: ActorId, encoding: TextEncoding) {
        self.actor = actor
        self.ops = OpSet(encoding: encoding)
    }

    var encoding: TextEncoding { ops.encoding }

    // MARK: Resolving arguments

    /// The object `obj` names, or a typed error.
    func object(_ obj: ObjId) throws(AutomergeError) -> ObjectState {
        guard let (_, index) = ops.resolve(obj) else { throw .unknownObject(obj) }
        return ops.objects[index]
    }

    /// The clock of `heads`, or a typed error naming unknown hashes.
    func clock(_ heads: Set<ChangeHash>) throws(AutomergeError) -> Clock {
        let missing = history.missing(heads)
        guard missing.isEmpty else { throw .unknownHeads(missing) }
        return history.clock(heads: heads)
    }

    // MARK: Transactions

    /// The id the next op gets, if a transaction is open and has room for
    /// it; nil otherwise (then ``nextOpId()`` opens one, or throws). Unlike
    /// that, asking changes nothing: an edit can build its op before it
    /// knows whether it makes one.
    var nextOpIdInOpenTransaction: OpId? {
        guard let counter = transaction?.nextCounter, counter <= maxOpCounter else { return nil }
        return OpId(counter: UInt32(counter), actor: transaction!.actor)
    }

    /// A transaction of this document's actor, on top of the current heads
    /// (and the actor's previous change, which a fork may not have as a head).
    mutating func newTransaction() -> Transaction {
        let actorIndex = ops.actors.intern(actor)
        let sequence = history.lastSequence(of: actorIndex) + 1
        var dependencies = history.heads
        if let previous = history.hash(actor: actorIndex, sequence: sequence - 1) {
            dependencies.insert(previous)
        }
        return Transaction(actor: actorIndex, sequence: sequence, startOp: ops.maxOp + 1,
                           dependencies: dependencies.sorted())
    }

    /// Commits pending edits, then a change with no ops (Rust's
    /// `empty_change`): it gives a document with no content a history, as
    /// automerge-repo's `create()` does for a new document.
    mutating func commitEmptyChange(message: String?, time: Int64) {
        commit()
        // Two statements: the transaction interns the actor, which the change must then see.
        let transaction = newTransaction()
        commit(change(of: transaction, message: message, time: time))
    }

    /// The id for the next local op, opening a transaction if none is open.
    mutating func nextOpId() throws(AutomergeError) -> OpId {
        if transaction == nil {
            // Checked before the transaction opens, so that a refused op leaves none open.
            try reserveOpCounters(1)
            transaction = newTransaction()
        }
        let counter = transaction!.nextCounter
        guard counter <= maxOpCounter else { throw .opCounterOverflow }
        return OpId(counter: UInt32(counter), actor: transaction!.actor)
    }

    /// How many more local ops fit below the op counter limit.
    var opCountersLeft: UInt64 {
        let next = transaction?.nextCounter ?? ops.maxOp + 1
        return next > maxOpCounter ? 0 : maxOpCounter - next + 1
    }

    /// Throws unless `count` more local ops fit below the op counter limit.
    /// An edit of several ops calls it with (an upper bound of) its op count
    /// before making the first, so that it never runs out part-way.
    func reserveOpCounters(_ count: UInt64) throws(AutomergeError) {
        guard count <= opCountersLeft else { throw .opCounterOverflow }
    }

    /// Applies a local op and records where it went in the open transaction.
    mutating func record(_ op: consuming ChangeOp, objectAt index: Int, keyHash: UInt64? = nil) throws(AutomergeError) {
        let target = try applyLocally { ops throws(OpSet.ApplyError) in try ops.apply(op, objectAt: index, keyHash: keyHash) }
        // Local deletes are made only for keys that hold ops, so every local
        // op has a place; a commit could not read back one without.
        guard let target else { throw .invalidChange("local op \(op.id.counter) changed nothing") }
        transaction!.append(op, at: target)
    }

    /// Applies a local op to the op set through `apply`; the error no local
    /// op should meet (they are checked as they are made) becomes a typed one.
    mutating func applyLocally<Result>(_ apply: (inout OpSet) throws(OpSet.ApplyError) -> Result) throws(AutomergeError) -> Result {
        do {
            return try apply(&ops)
        } catch {
            throw .invalidChange("local op could not be applied: \(error)")
        }
    }

    /// Turns the open transaction into a change. Empty transactions make none.
    mutating func commit(message: String? = nil, time: Int64 = 0) {
        commit(pendingChange(message: message, time: time))
    }

    /// Closes the open transaction, adding `change` (its ``pendingChange(message:time:)``) to the history.
    ///
    /// A queued change by the same actor with the same sequence number is
    /// dropped: it can never apply now, and a save that kept it beside the
    /// commit would write a file no load accepts (Rust keeps it, and its
    /// save then fails to load with a duplicate sequence number).
    mutating func commit(_ change: PendingChange?) {
        transaction = nil
        guard let change else { return }
        addToHistory(change.header, maxOp: change.maxOp, hash: change.hash, bytes: change.bytes, actor: change.actor)
        guard !queue.isEmpty else { return }
        queue.remove(ChangeIdentity(actor: ops.actors[change.actor], sequence: change.header.sequence))
        queue.noteApplied(change.hash)
    }

    /// The change a commit of the open transaction would make, made without
    /// committing (nil when no transaction has ops): received changes are
    /// checked against the history with it before anything changes.
    func pendingChange(message: String? = nil, time: Int64 = 0) -> PendingChange? {
        guard let transaction, !transaction.ops.isEmpty else { return nil }
        return change(of: transaction, message: message, time: time)
    }

    /// The change `transaction` makes, with its ops read back from the op set.
    private func change(of transaction: Transaction, message: String?, time: Int64) -> PendingChange {
        var rows = ChangeCodec.RowWriter(mentioning: transaction.mentionedActors, author: transaction.actor, actors: ops.actors)
        transaction.readBack(from: ops, into: &rows)
        let (header, maxOp, encoded) = rows.finish(
            sequence: transaction.sequence, startOp: transaction.startOp, dependencies: transaction.dependencies,
            time: time, message: message)
        return PendingChange(header: header, maxOp: maxOp, hash: encoded.hash, bytes: encoded.bytes, actor: transaction.actor)
    }

    /// The heads the history would have with `pending` committed.
    func heads(committing pending: PendingChange?) -> Set<ChangeHash> {
        var heads = history.heads
        if let pending {
            heads.subtract(pending.header.dependencies)
            heads.insert(pending.hash)
        }
        return heads
    }

    /// Records a change whose dependencies are in the history.
    mutating func addToHistory(_ change: ChangeHeader, maxOp: UInt64, hash: ChangeHash, bytes: [UInt8], actor: UInt32) {
        history.add(change, maxOp: maxOp, hash: hash, bytes: bytes, actor: actor)
    }
}

extension ChangeGraph {
    /// Records a received change, by `actor` (its author's op-set index),
    /// whose dependencies are in the graph.
    mutating func add(_ change: DecodedChange, actor: UInt32) {
        add(change.stored.header, maxOp: change.stored.maxOp, hash: change.hash, bytes: change.bytes, actor: actor)
    }

    /// Records a change whose dependencies are in the graph.
    mutating func add(_ change: ChangeHeader, maxOp: UInt64, hash: ChangeHash, bytes: [UInt8], actor: UInt32) {
        add(ChangeEntry(
            hash: hash, actor: actor, sequence: change.sequence, startOp: change.startOp, maxOp: maxOp,
            time: change.time, message: change.message,
            dependencyIndices: change.dependencies.compactMap { index(of: $0) }[...],
            extraBytes: change.extraBytes, bytes: .chunk(bytes)))
    }
}

/// The open transaction encoded as a change (see ``DocumentState/pendingChange(message:time:)``).
struct PendingChange {
    let header: ChangeHeader
    let maxOp: UInt64
    let hash: ChangeHash
    let bytes: [UInt8]
    /// The author's op-set actor index.
    let actor: UInt32
}

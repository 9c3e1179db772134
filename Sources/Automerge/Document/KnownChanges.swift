/// The changes that received changes are checked against: the document's
/// history, the open transaction as the change its commit will make, and
/// the received changes checked so far. A batch of received changes is
/// checked in full before any of it is applied (see
/// ``DocumentState/apply(_:)``), so the history cannot yet hold the changes
/// before the one being checked; this answers as if it did.
struct KnownChanges {
    private struct Entry {
        let actor: UInt32
        let sequence: UInt64
        let maxOp: UInt64
    }

    private struct Authorship: Hashable {
        let actor: UInt32
        let sequence: UInt64
    }

    private let history: ChangeGraph
    private var added: [ChangeHash: Entry] = [:]
    private var addedBySequence: [Authorship: ChangeHash] = [:]
    private var lastAddedSequence: [UInt32: UInt64] = [:]

    /// The history, and `pending` (the open transaction's change) as if committed.
    init(history: ChangeGraph, pending: PendingChange?) {
        self.history = history
        if let pending { add(pending.hash, actor: pending.actor, sequence: pending.header.sequence, maxOp: pending.maxOp) }
    }

    /// Makes room for `count` more changes counted by ``add(_:actor:sequence:maxOp:)``.
    mutating func reserveCapacity(_ count: Int) {
        added.reserveCapacity(added.count + count)
        addedBySequence.reserveCapacity(addedBySequence.count + count)
    }

    /// Counts `hash` as applied.
    mutating func add(_ hash: ChangeHash, actor: UInt32, sequence: UInt64, maxOp: UInt64) {
        added[hash] = Entry(actor: actor, sequence: sequence, maxOp: maxOp)
        addedBySequence[Authorship(actor: actor, sequence: sequence)] = hash
        lastAddedSequence[actor] = max(lastAddedSequence[actor] ?? 0, sequence)
    }

    func contains(_ hash: ChangeHash) -> Bool { history.contains(hash) || added[hash] != nil }

    /// The hash of `actor`'s change with `sequence`, if known.
    func hash(actor: UInt32, sequence: UInt64) -> ChangeHash? {
        history.hash(actor: actor, sequence: sequence) ?? addedBySequence[Authorship(actor: actor, sequence: sequence)]
    }

    /// The last sequence number of `actor` (0 if none).
    func lastSequence(of actor: UInt32) -> UInt64 {
        max(history.lastSequence(of: actor), lastAddedSequence[actor] ?? 0)
    }

    /// The max op of the change `hash`, if known.
    func maxOp(of hash: ChangeHash) -> UInt64? {
        history.record(hash)?.maxOp ?? added[hash]?.maxOp
    }
}

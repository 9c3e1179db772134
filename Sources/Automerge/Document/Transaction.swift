/// The ops a document has made locally since its last commit. They are
/// already applied to the op set; committing turns them into a change.
struct Transaction: Sendable {
    let actor: UInt32
    let sequence: UInt64
    let startOp: UInt64
    let dependencies: [ChangeHash]
    /// In chunks: an array of a million ops grown by doubling was a third of
    /// the time of typing them (see ``ChunkedList``).
    var ops = ChunkedList<ChangeOp>()

    /// The id the next op will get.
    var nextCounter: UInt64 { startOp + UInt64(ops.count) }
}

/// The heads one storage id has for a document, as `remote-heads-changed` reports them.
public struct RemoteHeads: Hashable, Sendable {
    /// `heads`: the change hashes, as strings (automerge-repo writes each as
    /// base58check of its bytes); kept as given, not checked.
    public var heads: [String]
    /// `timestamp`: when the first reporter saw them, in milliseconds since
    /// the Unix epoch; a receiver forwards only reports newer than the last.
    public var timestamp: UInt64

    /// Heads `heads` seen at `timestamp`.
    public init(heads: [String], timestamp: UInt64) {
        self.heads = heads
        self.timestamp = timestamp
    }
}

extension RepoMessage {
    /// `remote-subscription-change`: the sender adds storage ids to, or removes
    /// them from, the set whose document heads it wants the receiver to report.
    public struct RemoteSubscriptionChange: Hashable, Sendable {
        /// `senderId`: the subscribing peer.
        public var senderId: PeerId
        /// `targetId`: the peer asked to report.
        public var targetId: PeerId
        /// `add`: storage ids to report on; `nil` when absent, `null` or `undefined`.
        public var add: [StorageId]?
        /// `remove`: storage ids no longer to report on; `nil` when absent,
        /// `null` or `undefined` (automerge-repo may write `remove: undefined`).
        public var remove: [StorageId]?

        /// `senderId` asks `targetId` to report on `add` and stop reporting on `remove`.
        public init(senderId: PeerId, targetId: PeerId, add: [StorageId]? = nil, remove: [StorageId]? = nil) {
            self.senderId = senderId
            self.targetId = targetId
            self.add = add
            self.remove = remove
        }
    }

    /// `remote-heads-changed`: the heads a document has in the storage of other peers.
    public struct RemoteHeadsChanged: Hashable, Sendable {
        /// `senderId`: the reporting peer.
        public var senderId: PeerId
        /// `targetId`: the subscribed peer.
        public var targetId: PeerId
        /// `documentId`: the document, written as its base58check string.
        public var documentId: DocumentId
        /// `newHeads`: for each storage id, the heads it has; written in storage id order.
        public var newHeads: [StorageId: RemoteHeads]

        /// `senderId` tells `targetId` that `documentId` has reached `newHeads`.
        public init(senderId: PeerId, targetId: PeerId, documentId: DocumentId, newHeads: [StorageId: RemoteHeads]) {
            self.senderId = senderId
            self.targetId = targetId
            self.documentId = documentId
            self.newHeads = newHeads
        }
    }
}

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

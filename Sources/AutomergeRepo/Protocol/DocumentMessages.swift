extension RepoMessage {
    /// The body of `sync` and of `request`: one Automerge sync message about one document.
    public struct Sync: Hashable, Sendable {
        /// `senderId`: the sending peer.
        public var senderId: PeerId
        /// `targetId`: the receiving peer.
        public var targetId: PeerId
        /// `documentId`: the document, written as its base58check string.
        public var documentId: DocumentId
        /// `data`: the Automerge sync message, a CBOR byte string.
        public var data: [UInt8]

        /// A sync message about `documentId` from `senderId` to `targetId`.
        public init(senderId: PeerId, targetId: PeerId, documentId: DocumentId, data: [UInt8]) {
            self.senderId = senderId
            self.targetId = targetId
            self.documentId = documentId
            self.data = data
        }
    }

    /// `doc-unavailable`: the sender has no copy of the document, and none of its peers has one.
    public struct DocUnavailable: Hashable, Sendable {
        /// `senderId`: the peer without the document.
        public var senderId: PeerId
        /// `targetId`: the peer that asked for it.
        public var targetId: PeerId
        /// `documentId`: the document, written as its base58check string.
        public var documentId: DocumentId

        /// `senderId` tells `targetId` that `documentId` is unavailable.
        public init(senderId: PeerId, targetId: PeerId, documentId: DocumentId) {
            self.senderId = senderId
            self.targetId = targetId
            self.documentId = documentId
        }
    }

    /// `ephemeral`: application data about a document that is relayed, not stored.
    ///
    /// A receiver drops a message whose `count` is not above the last one seen
    /// from the same `senderId` and `sessionId`, which stops gossip loops.
    public struct Ephemeral: Hashable, Sendable {
        /// `senderId`: the peer the data comes from (kept when relayed).
        public var senderId: PeerId
        /// `targetId`: the peer it is sent to.
        public var targetId: PeerId
        /// `count`: the sequence number in the sender's session, increasing.
        public var count: UInt64
        /// `sessionId`: a random string the sender picks when it starts.
        public var sessionId: String
        /// `documentId`: the document the data is about, as its base58check string.
        public var documentId: DocumentId
        /// `data`: the application's bytes (CBOR in practice), a CBOR byte string.
        public var data: [UInt8]

        /// Message number `count` of session `sessionId`, about `documentId`.
        public init(senderId: PeerId, targetId: PeerId, count: UInt64, sessionId: String,
                    documentId: DocumentId, data: [UInt8]) {
            self.senderId = senderId
            self.targetId = targetId
            self.count = count
            self.sessionId = sessionId
            self.documentId = documentId
            self.data = data
        }
    }
}

extension RepoMessage {
    /// `join`: sent once by the connecting peer, before anything else.
    public struct Join: Hashable, Sendable {
        /// `senderId`: the connecting peer's id.
        public var senderId: PeerId
        /// `supportedProtocolVersions`: the versions the sender speaks, `["1"]`
        /// today. `nil` when the entry is absent, which automerge-repo's
        /// WebSocket server takes as version "1" (samod refuses it).
        public var supportedProtocolVersions: [String]?
        /// `peerMetadata` (or `metadata`, as the WebSocket package's README spells it): the
        /// sender's storage id and whether it is ephemeral; `nil` when absent.
        public var peerMetadata: PeerMetadata?

        /// A `join` from `senderId`, offering `supportedProtocolVersions` (version "1" unless told).
        public init(senderId: PeerId, supportedProtocolVersions: [String]? = [RepoMessage.protocolVersion1],
                    peerMetadata: PeerMetadata? = nil) {
            self.senderId = senderId
            self.supportedProtocolVersions = supportedProtocolVersions
            self.peerMetadata = peerMetadata
        }
    }

    /// `peer`: the accepting peer's answer to `join`.
    public struct Peer: Hashable, Sendable {
        /// `senderId`: the accepting peer's id.
        public var senderId: PeerId
        /// `selectedProtocolVersion`: the version chosen from the `join`'s list, "1".
        public var selectedProtocolVersion: String
        /// `targetId`: the connecting peer's id, from its `join`.
        public var targetId: PeerId
        /// `peerMetadata` (or `metadata`): the accepting peer's storage id and
        /// whether it is ephemeral; `nil` when absent.
        public var peerMetadata: PeerMetadata?

        /// A `peer` from `senderId` to `targetId`, selecting `selectedProtocolVersion` ("1" unless told).
        public init(senderId: PeerId, selectedProtocolVersion: String = RepoMessage.protocolVersion1,
                    targetId: PeerId, peerMetadata: PeerMetadata? = nil) {
            self.senderId = senderId
            self.selectedProtocolVersion = selectedProtocolVersion
            self.targetId = targetId
            self.peerMetadata = peerMetadata
        }
    }

    /// `error`: the sender will close the connection, for the reason given.
    ///
    /// automerge-repo's WebSocket server also writes its own id and the
    /// client's (`senderId`, `targetId`); samod writes only `message`. Both are read.
    public struct ErrorReport: Hashable, Sendable {
        /// `message`: what went wrong, for people to read.
        public var message: String
        /// `senderId`, when given.
        public var senderId: PeerId?
        /// `targetId`, when given.
        public var targetId: PeerId?

        /// An `error` saying `message`.
        public init(message: String, senderId: PeerId? = nil, targetId: PeerId? = nil) {
            self.message = message
            self.senderId = senderId
            self.targetId = targetId
        }
    }

    /// `leave`: the sender is about to disconnect.
    public struct Leave: Hashable, Sendable {
        /// `senderId`: the leaving peer's id.
        public var senderId: PeerId

        /// A `leave` from `senderId`.
        public init(senderId: PeerId) {
            self.senderId = senderId
        }
    }
}

/// What a peer says of itself in `join` and `peer`: the `peerMetadata` map.
public struct PeerMetadata: Hashable, Sendable {
    /// `storageId`: the id of the sender's persistent storage; `nil` when
    /// absent, `null` or `undefined` (what automerge-repo writes for a repo without storage).
    public var storageId: StorageId?
    /// `isEphemeral`: whether the sender will not come back with this storage
    /// id (so its sync state need not be kept); `false` when absent, as in samod.
    public var isEphemeral: Bool

    /// Metadata naming `storageId`, ephemeral or not.
    public init(storageId: StorageId? = nil, isEphemeral: Bool = false) {
        self.storageId = storageId
        self.isEphemeral = isEphemeral
    }
}

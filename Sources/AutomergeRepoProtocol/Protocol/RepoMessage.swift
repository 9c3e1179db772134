/// One message of the automerge-repo network protocol, version "1", as
/// automerge-repo (JavaScript) and samod (Rust) send it over a WebSocket:
/// a CBOR map with text keys, its kind in the `type` entry.
///
/// The handshake is `join` (from the connecting peer) answered by `peer`, or
/// by `error` and a close; `leave` announces a disconnect. After it, either
/// side sends the document messages `request`, `sync`, `doc-unavailable`
/// and `ephemeral`, and the remote-heads gossip
/// `remote-subscription-change` and `remote-heads-changed`.
///
/// Each associated value is named as its entry on the wire (`senderId`,
/// `documentId`, ...). Document ids are written as their base58check
/// string, `data` as a CBOR byte string.
///
/// A message of any other `type` decodes to ``unknown(type:)`` rather than
/// failing: automerge-repo drops messages it does not know, and a peer
/// should do the same. Read one with ``init(decoding:maximumSize:)`` and
/// write one with ``encoded()``.
public enum RepoMessage: Hashable, Sendable {
    /// `join`: the connecting peer's first message, before anything else.
    ///
    /// - `supportedProtocolVersions`: the versions the sender speaks, `["1"]`
    ///   today; `nil` when the entry is absent, which automerge-repo's
    ///   WebSocket server takes as version "1" (samod refuses it).
    /// - `peerMetadata`: the sender's storage id and whether it is ephemeral,
    ///   read from `peerMetadata` or else `metadata`; `nil` when neither is there.
    case join(senderId: PeerId, supportedProtocolVersions: [String]? = [RepoMessage.protocolVersion1],
              peerMetadata: PeerMetadata? = nil)

    /// `peer`: the accepting peer's answer to `join`.
    ///
    /// - `selectedProtocolVersion`: the version chosen from the `join`'s list, "1".
    /// - `targetId`: the connecting peer, from its `join`.
    /// - `peerMetadata`: as in ``join(senderId:supportedProtocolVersions:peerMetadata:)``.
    case peer(senderId: PeerId, selectedProtocolVersion: String = RepoMessage.protocolVersion1, targetId: PeerId,
              peerMetadata: PeerMetadata? = nil)

    /// `error`: the sender will close the connection, because of `message`.
    ///
    /// automerge-repo's WebSocket server also writes `senderId` and
    /// `targetId`; samod writes only `message`. Both forms are read.
    case error(message: String, senderId: PeerId? = nil, targetId: PeerId? = nil)

    /// `leave`: the sender is about to disconnect (advisory).
    case leave(senderId: PeerId)

    /// `sync`: an Automerge sync message (`data`) about one document.
    case sync(senderId: PeerId, targetId: PeerId, documentId: DocumentId, data: [UInt8])

    /// `request`: the first sync message about a document the sender does
    /// not have; the receiver answers `doc-unavailable` if it has none either.
    case request(senderId: PeerId, targetId: PeerId, documentId: DocumentId, data: [UInt8])

    /// `doc-unavailable`: neither the sender nor any of its peers has the document.
    case docUnavailable(senderId: PeerId, targetId: PeerId, documentId: DocumentId)

    /// `ephemeral`: application data (presence, cursors) about a document, relayed and never stored.
    ///
    /// - `count`: the sequence number in the sender's session; a receiver
    ///   drops a message whose count is not above the last one it saw from
    ///   the same `senderId` and `sessionId`, which stops gossip loops.
    /// - `sessionId`: a random string the sender picks when it starts.
    /// - `data`: the application's bytes (CBOR in practice).
    case ephemeral(senderId: PeerId, targetId: PeerId, count: UInt64, sessionId: String, documentId: DocumentId,
                   data: [UInt8])

    /// `remote-subscription-change`: the sender adds storage ids to (`add`),
    /// or removes them from (`remove`), the set whose document heads it wants
    /// the receiver to report. Either list is `nil` when absent, `null` or
    /// `undefined` (automerge-repo may write `remove: undefined`).
    case remoteSubscriptionChange(senderId: PeerId, targetId: PeerId, add: [StorageId]? = nil,
                                  remove: [StorageId]? = nil)

    /// `remote-heads-changed`: the heads `documentId` has reached in the
    /// storage of other peers, by storage id (written in storage id order).
    case remoteHeadsChanged(senderId: PeerId, targetId: PeerId, documentId: DocumentId,
                            newHeads: [StorageId: RemoteHeads])

    /// A message whose `type` is none of the above, to be ignored.
    case unknown(type: String)

    /// The only protocol version there is, `"1"`, as `join` offers it and `peer` selects it.
    public static let protocolVersion1 = "1"

    /// The largest message ``init(decoding:maximumSize:)`` reads unless told otherwise: 64 MiB.
    public static let defaultMaximumSize = 64 * 1024 * 1024

    /// The message's `type` entry as it is written on the wire.
    public var type: String {
        switch self {
        case .join: return MessageType.join
        case .peer: return MessageType.peer
        case .error: return MessageType.error
        case .leave: return MessageType.leave
        case .sync: return MessageType.sync
        case .request: return MessageType.request
        case .docUnavailable: return MessageType.docUnavailable
        case .ephemeral: return MessageType.ephemeral
        case .remoteSubscriptionChange: return MessageType.remoteSubscriptionChange
        case .remoteHeadsChanged: return MessageType.remoteHeadsChanged
        case .unknown(let type): return type
        }
    }
}

/// The `type` strings of the messages we know, as messages.ts (automerge-repo
/// and its WebSocket package) and samod's wire_protocol.rs spell them.
enum MessageType {
    static let join = "join"
    static let peer = "peer"
    static let error = "error"
    static let leave = "leave"
    static let sync = "sync"
    static let request = "request"
    static let docUnavailable = "doc-unavailable"
    static let ephemeral = "ephemeral"
    static let remoteSubscriptionChange = "remote-subscription-change"
    static let remoteHeadsChanged = "remote-heads-changed"
}

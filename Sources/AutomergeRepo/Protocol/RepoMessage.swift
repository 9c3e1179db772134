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
/// A message of any other `type` decodes to ``unknown(type:)`` rather than
/// failing: automerge-repo drops messages it does not know, and a peer
/// should do the same. Read one with ``init(decoding:maximumSize:)`` and
/// write one with ``encoded()``.
public enum RepoMessage: Hashable, Sendable {
    /// `join`: the connecting peer's first message.
    case join(Join)
    /// `peer`: the answer to `join`, with the version chosen.
    case peer(Peer)
    /// `error`: the sender is about to close the connection, and says why.
    case error(ErrorReport)
    /// `leave`: the sender is about to disconnect (advisory).
    case leave(Leave)
    /// `sync`: an Automerge sync message about one document.
    case sync(Sync)
    /// `request`: the first sync message about a document the sender does
    /// not have; the receiver answers `doc-unavailable` if it has none either.
    case request(Sync)
    /// `doc-unavailable`: neither the sender nor any of its peers has the document.
    case docUnavailable(DocUnavailable)
    /// `ephemeral`: application data about a document (presence, cursors), not stored.
    case ephemeral(Ephemeral)
    /// `remote-subscription-change`: the storage ids whose heads the sender wants to hear of.
    case remoteSubscriptionChange(RemoteSubscriptionChange)
    /// `remote-heads-changed`: the heads a document has reached in other peers' storage.
    case remoteHeadsChanged(RemoteHeadsChanged)
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

import Foundation

/// One message of the replication protocol, as a ``ReplicationTransport``
/// carries it. Two datastores replicate by running the Automerge sync
/// protocol once per document over one connection; these messages frame
/// it (see docs/decisions.md, "Replication"):
///
/// - ``hello(_:)`` opens the session each way;
/// - ``sync(docId:message:attachments:startsExchange:)`` carries one
///   Automerge sync message of one document; every `sync` is answered by
///   exactly one `sync` or ``idle(docId:)``, so that both sides know when an
///   exchange is over;
/// - ``offersDone`` says that the sender has offered every document it
///   will offer in this run;
/// - ``blobRequest(digest:)``, ``blob(digest:data:)`` and
///   ``blobUnavailable(digest:)`` fetch attachment bytes by digest, only
///   when the receiver lacks them;
/// - ``bye`` ends the session; ``failure(_:)`` reports why a side gave up.
public enum ReplicationMessage: Hashable, Sendable {
    case hello(ReplicationHello)
    case sync(docId: String, message: Data, attachments: [AttachmentDigest], startsExchange: Bool)
    case idle(docId: String)
    case offersDone
    case blobRequest(digest: String)
    case blob(digest: String, data: Data)
    case blobUnavailable(digest: String)
    case bye
    case failure(String)
}

/// A ``ReplicationMessage`` with its place in the sender's stream: the
/// first frame each way is 0, and each next one more, so that a lost,
/// repeated or reordered frame is noticed instead of confusing the sync
/// protocol (which assumes a reliable, in-order link).
public struct ReplicationFrame: Hashable, Sendable {
    /// The frame's position in its sender's stream.
    public var serial: UInt64
    public var message: ReplicationMessage

    public init(serial: UInt64, message: ReplicationMessage) {
        self.serial = serial
        self.message = message
    }
}

/// What each side says first: who it is, and (from the side that starts
/// the replication) what it wants.
public struct ReplicationHello: Hashable, Sendable {
    /// The version of this protocol; this package speaks 1.
    public var version: UInt64
    /// The sender datastore's replica id (its Automerge actor, as hex):
    /// the key under which the other side keeps its sync state.
    public var replicaId: String
    /// Whether the initiator offers its documents (push).
    public var initiatorSends: Bool
    /// Whether the initiator applies the responder's documents (pull).
    public var initiatorReceives: Bool
    /// The documents the responder offers when the initiator pulls; nil for all.
    public var pullDocumentIds: [String]?
    /// Whether the session stays open, offering new writes as they are made.
    public var continuous: Bool

    public init(version: UInt64 = 1, replicaId: String, initiatorSends: Bool = false, initiatorReceives: Bool = false,
                pullDocumentIds: [String]? = nil, continuous: Bool = false)
    {
        self.version = version
        self.replicaId = replicaId
        self.initiatorSends = initiatorSends
        self.initiatorReceives = initiatorReceives
        self.pullDocumentIds = pullDocumentIds
        self.continuous = continuous
    }
}

/// An attachment a document names: enough for the receiver to tell whether
/// it holds the bytes before it applies the document.
public struct AttachmentDigest: Hashable, Sendable {
    /// `sha256-` and 64 hex digits.
    public var digest: String
    public var length: Int64

    public init(digest: String, length: Int64) {
        self.digest = digest
        self.length = length
    }
}

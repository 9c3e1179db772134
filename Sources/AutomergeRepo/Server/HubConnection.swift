import AutomergeRepoProtocol
import AutomergeStore
import NIOCore

/// A connection's number, unique for the life of a ``RepoHub``.
typealias ConnectionId = UInt64

/// One WebSocket connection as the hub sees it: before `join` only its
/// outbox; after it the peer it speaks for and that peer's sync sessions.
final class HubConnection {
    let id: ConnectionId
    let outbox: Outbox
    /// The socket, when there is one (tests drive the hub without).
    let channel: (any Channel)?
    /// The joined peer; nil until the handshake is done.
    var peerId: PeerId?
    /// The peer's sync sessions with the stored documents.
    var syncPeer: DocumentSyncPeer?
    /// The documents the peer has synced or asked for on this connection.
    var documents: Set<DocumentId> = []
    /// What the replies to the peer's own messages may cost before its next message waits.
    var replies: ByteAllowance
    /// The bytes of the peer's ephemeral messages that may still be relayed; past it they are dropped.
    var ephemeral: ByteAllowance
    /// How much document work the peer's messages have cost lately.
    var work = WorkMeter()

    /// When each document's last whole-document reply was sent, or is
    /// allowed to be, counting the wait its connection was given.
    private var wholeReplies: [DocumentId: ContinuousClock.Instant] = [:]

    /// The highest ephemeral `count` relayed per session of this peer.
    private var ephemeralCounts: [String: UInt64] = [:]

    init(id: ConnectionId, outbox: Outbox, channel: (any Channel)?, replies: ByteAllowance, ephemeral: ByteAllowance) {
        self.id = id
        self.replies = replies
        self.ephemeral = ephemeral
        self.outbox = outbox
        self.channel = channel
    }

    /// Whether the handshake is done.
    var hasJoined: Bool { peerId != nil }

    /// Whether an ephemeral message is new: its count above the last one
    /// seen in its session. A peer has one session per run; the few kept
    /// are forgotten together once a peer has used more than 16.
    func acceptEphemeral(session: String, count: UInt64) -> Bool {
        if let last = ephemeralCounts[session], count <= last { return false }
        if ephemeralCounts[session] == nil, ephemeralCounts.count >= 16 { ephemeralCounts.removeAll() }
        ephemeralCounts[session] = count
        return true
    }

    /// Records a whole-document reply of `document` sent at `now`, and
    /// returns how long the connection's next message waits: the rest of
    /// `interval` since the previous one, so that such replies go at most
    /// one an interval.
    func wholeReplySent(of document: DocumentId, at now: ContinuousClock.Instant, interval: Duration) -> Duration {
        guard let previous = wholeReplies[document], now - previous < interval else {
            wholeReplies[document] = now
            return .zero
        }
        let wait = interval - (now - previous)
        wholeReplies[document] = now + wait
        return wait
    }

    /// Queues `message`; false when the connection is closing or its outbox overflowed.
    @discardableResult
    func send(_ message: RepoMessage) -> Bool {
        outbox.send(message.encoded())
    }
}

/// What the connection's reader does after the hub handled a message.
enum HubDisposition: Equatable {
    /// Read the next message.
    case keepReading
    /// Read the next message after this long: the peer's replies have
    /// cost more than its allowance (see ``ByteAllowance``).
    case pause(Duration)
    /// Stop reading and close once the outbox is written (the hub has queued
    /// an `error` or the peer said `leave`).
    case close
}

import Automerge
import AutomergeStore

/// How a ``RepoServer`` listens and what it allows each connection, and
/// all of them together.
///
/// The limits keep one peer, or many, from taking the service from the
/// others: what a connection may send and have queued, how long it may
/// take to join and to finish a message, and how many connections may be
/// open. The defaults suit a server on its own machine; the memory the
/// server holds stays near `documentCacheBytes + maximumInboundBytes +
/// maximumOutboundBytes`.
public struct RepoServerConfiguration: Sendable {
    /// The address to listen on; `127.0.0.1` unless told otherwise.
    public var host: String
    /// The TCP port; 0 picks a free one (``RepoServer/listeningPort()`` tells which).
    public var port: Int
    /// The largest WebSocket message (one repo message) a peer may send, in
    /// bytes; a larger one closes its connection with "message too large".
    public var maximumMessageSize: Int
    /// The most bytes of replies a connection may have waiting to be
    /// written; a peer that stops reading past it is disconnected.
    public var maximumQueuedBytes: Int
    /// The most documents one connection may sync; past it the peer gets
    /// an `error` and is disconnected, so that one peer cannot make the
    /// server hold a sync session for every id it can invent.
    public var maximumDocumentsPerConnection: Int
    /// How often the server pings each WebSocket. A peer that neither sends
    /// anything (a pong, a message) nor takes anything the server writes
    /// for two intervals after a ping is disconnected; a slow reader still
    /// taking a large reply is not.
    public var keepAliveInterval: Duration
    /// The most connections the kernel queues before the server accepts
    /// them (within its own cap, `net.core.somaxconn`: 4096 on Linux by
    /// default). Past it a connection's opening is dropped and retried about a
    /// second later: with Hummingbird's 256, a thousand clients connecting
    /// at once (a server restart) waited over a second in one case in five.
    public var backlog: Int
    /// How much memory (estimated bytes) the datastore may keep of loaded
    /// documents between messages; the server sets the datastore's
    /// `documentCacheByteLimit` to it. Past it each message about an evicted
    /// document loads it again; 1 GiB keeps about 4,000 documents of 1,000 changes.
    public var documentCacheBytes: Int
    /// The peer id the server goes by; a random `storage-server-…` id unless given.
    public var peerId: PeerId?
    /// The most connections open at once; more are closed as they open.
    public var maximumConnections: Int
    /// The most connections open at once from one IP address.
    public var maximumConnectionsPerAddress: Int
    /// How long a connection has, from its opening, to finish the WebSocket
    /// upgrade and send `join`; one that has not is closed.
    public var handshakeTimeout: Duration
    /// How long a message may take to arrive, from its first byte to its
    /// last; a connection with one unfinished past it is closed.
    public var messageTimeout: Duration
    /// The most bytes one connection may have received and not yet had
    /// handled (a message arriving, messages waiting their turn); a
    /// connection past it is closed. At least ``maximumMessageSize``.
    public var maximumInboundBytesPerConnection: Int
    /// How fast one connection's bytes are read once it has sent
    /// ``receiveBurstBytes`` at once: past it the server reads the
    /// connection no faster (TCP's flow control holds the rest at the
    /// peer), so that a peer streaming megabytes a second costs the server
    /// the frame decoding of this rate, not of its own.
    public var receiveBytesPerSecond: Int
    /// How many bytes a connection may send at full speed before
    /// ``receiveBytesPerSecond`` applies; refilled at that rate.
    public var receiveBurstBytes: Int
    /// The most bytes all connections together may have received and not
    /// yet had handled; the connection whose bytes would pass it is closed.
    public var maximumInboundBytes: Int
    /// The most bytes of replies all connections together may have waiting
    /// to be written; the connection whose reply would pass it is closed, as
    /// for ``maximumQueuedBytes``.
    public var maximumOutboundBytes: Int
    /// The largest ephemeral message relayed; larger ones are dropped.
    public var maximumEphemeralMessageSize: Int
    /// An ephemeral message is dropped for a follower that has more than
    /// this many bytes waiting to be written to it: it is not reading.
    public var maximumEphemeralBacklog: Int
    /// The rate at which one connection's ephemeral messages are relayed,
    /// in bytes a second, past ``ephemeralBurstBytes``; past it they are
    /// dropped (each is copied to every follower of its document).
    public var ephemeralBytesPerSecond: Int
    /// The bytes of ephemeral messages a connection may have relayed at once before ``ephemeralBytesPerSecond`` applies.
    public var ephemeralBurstBytes: Int
    /// The rate at which the replies to a connection's own messages may
    /// be sent, in bytes a second, past ``replyBurstBytes``: a connection
    /// whose replies cost more waits before its next message is handled
    /// (a peer asking for a whole document again and again).
    public var replyBytesPerSecond: Int
    /// The bytes of replies a connection may draw at once before ``replyBytesPerSecond`` applies.
    public var replyBurstBytes: Int
    /// How many changes each peer may send ahead of a document's history
    /// (their dependencies missing); they are held for the peer's
    /// connection only, never stored, and a peer past the limits is refused.
    public var heldChangeLimits: HeldChangeLimits
    /// The most peers whose sync state a document keeps saved; past it the
    /// least recently saved goes (that peer, back, syncs from the start).
    public var maximumSyncStatesPerDocument: Int
    /// How long a shutdown waits for open WebSockets to close after it has
    /// asked them to (connections that never joined close at once); those
    /// still open then are closed.
    public var shutdownGracePeriod: Duration
    /// A sync message of at least this many bytes is bulk work: applying it,
    /// and offering what it changed, runs on the server's bulk thread pool
    /// when its host gives one (`RepoServer.init(bulkThreadPool:)`), so that
    /// a peer's megabytes do not hold the threads small edits are waiting for.
    /// A sync message from a peer that holds nothing of its document (no
    /// heads: its reply is the whole document) is bulk work whatever its size.
    public var bulkMessageSize: Int
    /// The share of one core a connection's document work may take, on
    /// average over the last seconds, before its next work is bulk work too:
    /// a peer that keeps the server busy with small messages (asking for a
    /// whole document again and again) then competes with the other bulk
    /// work, not with everyone's edits.
    public var bulkConnectionShare: Double
    /// The shortest time between two whole-document replies of one document
    /// on one connection (answers to a peer that says it holds nothing of
    /// it): after a second one within it, the connection's next message
    /// waits out the rest. A peer fetches a document whole once; one that
    /// asks again and again (each answer costs the server a whole encoding
    /// and send, the question a few bytes) is held to one a period,
    /// whatever its reply allowance still holds.
    public var wholeDocumentInterval: Duration
    /// The `ExecutionPolicy` bulk work runs under. By default
    /// `ExecutionPolicy.singleThreaded`: bulk work then runs on its own
    /// thread only, so the bulk pool's size and priority bound it (a large
    /// load or save would otherwise hand half of its work to a Dispatch
    /// worker, at normal priority, beside everyone's edits).
    public var bulkExecutionPolicy: ExecutionPolicy

    /// A configuration with the defaults above: 32 MiB messages and queues,
    /// 100,000 documents per connection, a ping every 5 seconds, 4096
    /// connections queued; 10,000 connections, 1,000 from one address; 10
    /// seconds to join, 120 for a message; 64 MiB received and unhandled per
    /// connection, 512 MiB in all, 512 MiB of replies in all; ephemeral
    /// messages of 256 KiB, dropped behind 1 MiB of backlog or past 1 MiB a
    /// second from one connection (4 MiB at once); a connection's bytes read
    /// at 4 MiB a second past a burst of 16 MiB; replies at 16
    /// MiB a second past a burst of 128 MiB, and one whole document a
    /// second of each document; the default `HeldChangeLimits`;
    /// 1,000 saved sync states per document; 5 seconds of grace at shutdown;
    /// messages of 256 KiB and over are bulk work, and so is the work of a
    /// connection that has taken more than 5% of a core lately, and runs on
    /// one thread at a time (`ExecutionPolicy.singleThreaded`).
    public init(host: String = "127.0.0.1", port: Int = 3030, maximumMessageSize: Int = 32 << 20,
                maximumQueuedBytes: Int = 32 << 20, maximumDocumentsPerConnection: Int = 100_000,
                keepAliveInterval: Duration = .seconds(5), backlog: Int = 4096, documentCacheBytes: Int = 1 << 30,
                peerId: PeerId? = nil, maximumConnections: Int = 10_000, maximumConnectionsPerAddress: Int = 1_000,
                handshakeTimeout: Duration = .seconds(10), messageTimeout: Duration = .seconds(120),
                maximumInboundBytesPerConnection: Int = 64 << 20, maximumInboundBytes: Int = 512 << 20,
                receiveBytesPerSecond: Int = 4 << 20, receiveBurstBytes: Int = 16 << 20,
                maximumOutboundBytes: Int = 512 << 20, maximumEphemeralMessageSize: Int = 256 << 10,
                maximumEphemeralBacklog: Int = 1 << 20, ephemeralBytesPerSecond: Int = 1 << 20,
                ephemeralBurstBytes: Int = 4 << 20, replyBytesPerSecond: Int = 16 << 20,
                replyBurstBytes: Int = 128 << 20, wholeDocumentInterval: Duration = .seconds(1),
                heldChangeLimits: HeldChangeLimits = HeldChangeLimits(),
                maximumSyncStatesPerDocument: Int = 1_000, shutdownGracePeriod: Duration = .seconds(5),
                bulkMessageSize: Int = 256 << 10, bulkConnectionShare: Double = 0.05,
                bulkExecutionPolicy: ExecutionPolicy = .singleThreaded)
    {
        self.host = host
        self.port = port
        self.maximumMessageSize = maximumMessageSize
        self.maximumQueuedBytes = maximumQueuedBytes
        self.maximumDocumentsPerConnection = maximumDocumentsPerConnection
        self.keepAliveInterval = keepAliveInterval
        self.backlog = backlog
        self.documentCacheBytes = documentCacheBytes
        self.peerId = peerId
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
        self.handshakeTimeout = handshakeTimeout
        self.messageTimeout = messageTimeout
        self.maximumInboundBytesPerConnection = maximumInboundBytesPerConnection
        self.maximumInboundBytes = maximumInboundBytes
        self.receiveBytesPerSecond = receiveBytesPerSecond
        self.receiveBurstBytes = receiveBurstBytes
        self.maximumOutboundBytes = maximumOutboundBytes
        self.maximumEphemeralMessageSize = maximumEphemeralMessageSize
        self.maximumEphemeralBacklog = maximumEphemeralBacklog
        self.ephemeralBytesPerSecond = ephemeralBytesPerSecond
        self.ephemeralBurstBytes = ephemeralBurstBytes
        self.replyBytesPerSecond = replyBytesPerSecond
        self.replyBurstBytes = replyBurstBytes
        self.heldChangeLimits = heldChangeLimits
        self.maximumSyncStatesPerDocument = maximumSyncStatesPerDocument
        self.shutdownGracePeriod = shutdownGracePeriod
        self.bulkMessageSize = bulkMessageSize
        self.bulkConnectionShare = bulkConnectionShare
        self.bulkExecutionPolicy = bulkExecutionPolicy
        self.wholeDocumentInterval = wholeDocumentInterval
    }
}

/// How a ``RepoServer`` listens and what it allows each connection.
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
    /// How often the server pings each WebSocket; a peer that has not
    /// answered the previous ping by the next is disconnected (the keep-alive
    /// of automerge-repo's WebSocket server, every 5 seconds by default).
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

    /// A configuration with the defaults above: 32 MiB messages and queues,
    /// 100,000 documents per connection, a ping every 5 seconds, 4096 connections queued.
    public init(host: String = "127.0.0.1", port: Int = 3030, maximumMessageSize: Int = 32 << 20,
                maximumQueuedBytes: Int = 32 << 20, maximumDocumentsPerConnection: Int = 100_000,
                keepAliveInterval: Duration = .seconds(5), backlog: Int = 4096, documentCacheBytes: Int = 1 << 30,
                peerId: PeerId? = nil)
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
    }
}

import NIOPosix

/// How a ``RepoClient`` connects and retries.
public struct RepoClientConfiguration: Sendable {
    /// The peer id the client goes by; a random one unless given.
    public var peerId: PeerId?
    /// The largest WebSocket message the client accepts or sends, in bytes.
    public var maximumMessageSize: Int
    /// The delay before the first reconnection attempt; each failed attempt
    /// doubles it (with up to 20% random jitter) up to ``maximumReconnectDelay``.
    public var initialReconnectDelay: Duration
    /// The longest delay between reconnection attempts.
    public var maximumReconnectDelay: Duration
    /// How often the client pings the server; a server that has not
    /// answered the previous ping by the next is taken for gone and the
    /// client reconnects (a half-open connection is otherwise never noticed).
    public var keepAliveInterval: Duration
    /// How long `RepoClient.find` waits by default.
    public var findTimeout: Duration
    /// How long the client waits for the server's close frame after sending
    /// its own (``RepoClient/close()``, or a connection it ends); past it
    /// the client closes the TCP connection without the server's answer.
    public var closeTimeout: Duration
    /// The threads the client's storage calls run on (SQLite's calls
    /// block; they never run on Swift's cooperative threads): NIO's shared
    /// blocking-I/O pool unless the host gives its own.
    public var storageThreadPool: NIOThreadPool

    /// The defaults: a random peer id, 32 MiB messages, reconnecting after
    /// 100 ms doubling up to 10 s, finds that wait 30 s, a ping every 15 s,
    /// 2 s for the server to answer a close, storage on `NIOThreadPool.singleton`.
    public init(peerId: PeerId? = nil, maximumMessageSize: Int = 32 << 20,
                initialReconnectDelay: Duration = .milliseconds(100), maximumReconnectDelay: Duration = .seconds(10),
                findTimeout: Duration = .seconds(30), keepAliveInterval: Duration = .seconds(15),
                closeTimeout: Duration = .seconds(2), storageThreadPool: NIOThreadPool = .singleton)
    {
        self.storageThreadPool = storageThreadPool
        self.closeTimeout = closeTimeout
        self.keepAliveInterval = keepAliveInterval
        self.peerId = peerId
        self.maximumMessageSize = maximumMessageSize
        self.initialReconnectDelay = initialReconnectDelay
        self.maximumReconnectDelay = maximumReconnectDelay
        self.findTimeout = findTimeout
    }

    /// The delay before reconnection attempt `attempt` (1 for the first).
    func reconnectDelay(attempt: Int, jitter: Double) -> Duration {
        let doublings = min(max(attempt - 1, 0), 30)
        let delay = min(initialReconnectDelay * (1 << doublings), maximumReconnectDelay)
        return delay * (1 + 0.2 * jitter)
    }
}

import Logging
import NIOCore

/// The first handler of every connection, next to the socket, where
/// nothing the documents are doing can hold it up: it admits the
/// connection under the server's caps, closes it when its peer has not
/// joined in time or a message takes too long to arrive, counts the bytes
/// it receives into its ``InboundMeter``, and keeps it alive.
///
/// Keep-alive: once the peer has joined, the gate pings it every interval
/// (an unmasked ping frame written straight to the socket, between whole
/// frames). A peer is alive while it sends anything (a pong, a message) or
/// takes what the server writes: a reader too slow to have read the ping,
/// still reading a large reply, is not closed for it. One that does
/// neither for two whole intervals after a ping is closed (one interval
/// would close a live peer whose pong a busy machine delayed).
///
/// Reading: the bytes a connection sends draw on its ``ByteAllowance``;
/// while it is spent the gate holds the channel's reads back until it
/// refills, and TCP's flow control holds the peer. The channel reads one
/// buffer per read, so a peer gets at most one buffer (64 KiB) past its
/// allowance (NIO's default of four would let it take four).
///
/// The gate reads and writes the bytes on the wire: behind TLS it must sit
/// after the TLS handler.
final class ConnectionGate: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The gate's deadlines.
    struct Timing {
        var handshake: TimeAmount
        var keepAlive: TimeAmount
        var message: TimeAmount
        /// Bytes a connection may hold for ever (see ``InboundMeter/forgive(upTo:)``).
        var forgivenBytes = 4096
    }

    private static let pingFrame: [UInt8] = [0x89, 0x00]

    private let registry: ConnectionRegistry
    private let meter: InboundMeter
    private let timing: Timing
    private let logger: Logger
    private var openedAt = NIODeadline.now()
    private var lastHeard = NIODeadline.now()
    private var lastWritten = NIODeadline.now()
    /// When the last keep-alive round was.
    private var lastRound = NIODeadline.now()
    private var tickPeriod = TimeAmount.seconds(1)
    /// Keep-alive rounds in a row in which the peer neither sent nor took anything.
    private var silentRounds = 0
    private var ticks: RepeatedTask?
    private var isAdmitted = false
    /// What the peer may still send at full speed.
    private var receiving: ByteAllowance
    /// When the allowance is back above zero, while it is spent.
    private var readsResume: ContinuousClock.Instant?
    /// The read held back until then.
    private var heldRead: Scheduled<Void>?

    init(registry: ConnectionRegistry, meter: InboundMeter, timing: Timing, receiving: ByteAllowance, logger: Logger) {
        self.registry = registry
        self.meter = meter
        self.timing = timing
        self.receiving = receiving
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        if let refusal = registry.admit(context.channel, meter: meter) {
            logger.info("connection refused", metadata: ["reason": "\(refusal)"])
            context.close(promise: nil)
            return
        }
        isAdmitted = true
        Self.keepUnsentBytesOutOfTheKernel(context.channel)
        try? context.channel.syncOptions?.setOption(ChannelOptions.maxMessagesPerRead, value: 1)
        openedAt = .now()
        lastHeard = openedAt
        lastWritten = openedAt
        lastRound = openedAt
        // Often enough for every deadline; keep-alive rounds are counted apart.
        let period = max(.milliseconds(100), min(timing.keepAlive, timing.handshake, timing.message))
        tickPeriod = period
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        ticks = context.eventLoop.scheduleRepeatedTask(initialDelay: period, delay: period) { _ in
            let (gate, context) = loopBound.value
            gate.tick(context)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        ticks?.cancel()
        ticks = nil
        heldRead?.cancel()
        heldRead = nil
        meter.close()
        if isAdmitted { registry.remove(context.channel) }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        lastHeard = .now()
        guard meter.received(buffer.readableBytes, at: lastHeard) else {
            logger.info("connection closed", metadata: ["reason": "it holds more unhandled bytes than allowed"])
            context.close(promise: nil)
            return
        }
        let now = ContinuousClock.now
        let wait = receiving.charge(buffer.readableBytes, at: now)
        if wait > .zero { readsResume = now + wait }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        guard let resume = readsResume, resume > .now else {
            readsResume = nil
            return context.read()
        }
        guard heldRead == nil else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        heldRead = context.eventLoop.scheduleTask(in: TimeAmount(resume - .now)) {
            let (gate, context) = loopBound.value
            gate.heldRead = nil
            gate.readsResume = nil
            context.read()
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let written = promise ?? context.eventLoop.makePromise()
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        written.futureResult.whenSuccess { loopBound.value.lastWritten = .now() }
        context.write(data, promise: written)
    }

    /// The most bytes the kernel may hold that it has not yet sent: past
    /// them writes stay in NIO, so that a ping waits behind little data and
    /// each write's completion tells that the peer is taking what it is
    /// sent. Without it the kernel takes megabytes at once from a slow
    /// reader's connection, and neither does.
    static let unsentBytesInTheKernel = 64 << 10

    private static func keepUnsentBytesOutOfTheKernel(_ channel: any Channel) {
        #if os(Linux)
        let name: Int32 = 25  // TCP_NOTSENT_LOWAT
        #else
        let name: Int32 = 0x201  // TCP_NOTSENT_LOWAT
        #endif
        let option = ChannelOptions.Types.SocketOption(level: .tcp, name: NIOBSDSocket.Option(rawValue: name))
        try? channel.syncOptions?.setOption(option, value: unsentBytesInTheKernel)
    }

    private func tick(_ context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        meter.forgive(upTo: timing.forgivenBytes)
        guard registry.hasJoined(context.channel) else {
            if now - openedAt >= timing.handshake { close(context, "no join within \(timing.handshake)") }
            return  // before the upgrade, a ping would be read as HTTP
        }
        if let since = meter.unfinishedSince, now - since >= timing.message {
            return close(context, "a message took longer than \(timing.message) to arrive")
        }
        // A round is due at the tick nearest its time (a tick may come a little early).
        guard now - lastRound + .nanoseconds(tickPeriod.nanoseconds / 2) >= timing.keepAlive else { return }
        silentRounds = lastHeard > lastRound || lastWritten > lastRound ? 0 : silentRounds + 1
        lastRound = now
        if silentRounds >= 2 { return close(context, "no answer to a ping") }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: Self.pingFrame)), promise: nil)
    }

    private func close(_ context: ChannelHandlerContext, _ reason: String) {
        logger.info("connection closed", metadata: ["reason": "\(reason)", "remote": "\(context.remoteAddress.map { "\($0)" } ?? "-")",
                                                    "heard": "\(NIODeadline.now() - lastHeard)", "written": "\(NIODeadline.now() - lastWritten)"])
        context.close(promise: nil)
    }
}

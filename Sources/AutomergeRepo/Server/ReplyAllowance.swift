/// How many bytes of replies a connection's own messages may draw before
/// its next message waits: a token bucket of `burst` bytes, refilled at
/// `bytesPerSecond`. A reply costs the server its work and its bytes, the
/// request that asks for it nearly nothing; a peer that asks for a whole
/// document again and again is slowed to the refill rate, and only its
/// own connection waits.
struct ReplyAllowance {
    let bytesPerSecond: Int
    let burst: Int
    private var available: Double
    private var updated: ContinuousClock.Instant

    init(bytesPerSecond: Int, burst: Int, now: ContinuousClock.Instant = .now) {
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.burst = max(0, burst)
        available = Double(self.burst)
        updated = now
    }

    /// Draws `bytes`; returns how long the connection's next message waits
    /// for the allowance to be back above zero (zero when it is).
    mutating func charge(_ bytes: Int, at now: ContinuousClock.Instant) -> Duration {
        let elapsed = now - updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        available = min(Double(burst), available + seconds * Double(bytesPerSecond)) - Double(bytes)
        updated = now
        guard available < 0 else { return .zero }
        return .milliseconds(Int64((-available / Double(bytesPerSecond) * 1000).rounded(.up)))
    }
}

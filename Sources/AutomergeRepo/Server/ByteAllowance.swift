/// How many bytes a connection may draw: a token bucket of `burst` bytes,
/// refilled at `bytesPerSecond`. Replies to a connection's own messages
/// draw on one (a reply costs the server its work and its bytes, the
/// request that asks for it nearly nothing: a peer that asks for a whole
/// document again and again is slowed to the refill rate, and only its own
/// connection waits); the ephemeral messages it has relayed, on another.
struct ByteAllowance {
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
        refill(at: now)
        available -= Double(bytes)
        guard available < 0 else { return .zero }
        return .milliseconds(Int64((-available / Double(bytesPerSecond) * 1000).rounded(.up)))
    }

    /// Draws `bytes` if the allowance holds them; false, drawing nothing, if not.
    mutating func draw(_ bytes: Int, at now: ContinuousClock.Instant) -> Bool {
        refill(at: now)
        guard available >= Double(bytes) else { return false }
        available -= Double(bytes)
        return true
    }

    private mutating func refill(at now: ContinuousClock.Instant) {
        available = min(Double(burst), available + (now - updated).seconds * Double(bytesPerSecond))
        updated = now
    }
}

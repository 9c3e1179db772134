import Foundation

/// How much of a core one connection's document work has taken lately:
/// the time its lane jobs ran, decayed by half every ``halfLife``. A
/// connection whose rate passes its share has its next jobs run as bulk
/// work (see ``RepoServerConfiguration/bulkConnectionShare``): a peer that
/// makes the server work without pause (asking for a whole document a
/// hundred times a second) then competes with the other bulk work, at the
/// bulk pool's priority, not with everyone's small edits.
struct WorkMeter {
    /// How fast past work is forgotten: a burst counts half as much this
    /// long after it, so one large sync weighs on a connection for a few seconds only.
    static let halfLife: Duration = .seconds(1)

    private var decayedSeconds = 0.0
    private var updated: ContinuousClock.Instant

    init(now: ContinuousClock.Instant = .now) {
        updated = now
    }

    /// Adds work that took `spent`, finished at `now`.
    mutating func add(_ spent: Duration, at now: ContinuousClock.Instant) {
        decay(to: now)
        decayedSeconds += spent.seconds
    }

    /// The recent rate of work, in seconds a second (1 is one core all the time).
    mutating func rate(at now: ContinuousClock.Instant) -> Double {
        decay(to: now)
        // A steady rate r accumulates to r * halfLife / ln 2.
        return decayedSeconds * 0.693_147_180_56 / Self.halfLife.seconds
    }

    private mutating func decay(to now: ContinuousClock.Instant) {
        guard now > updated else { return }
        decayedSeconds *= exp2(-(now - updated).seconds / Self.halfLife.seconds)
        updated = now
    }
}

extension Duration {
    /// This duration in seconds, as a `Double`.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}

@testable import AutomergeRepo
import Testing

/// ``WorkMeter``: a connection's recent document work as a share of a core.
@Suite("Work meter: recent work, decayed")
struct WorkMeterTests {
    @Test("a steady rate of work reads as that rate; a burst halves every half-life")
    func steadyRateAndDecay() {
        let start = ContinuousClock.now
        var meter = WorkMeter(now: start)
        // 100 ms of work every 100 ms for 20 half-lives: a whole core.
        var now = start
        for _ in 0..<200 {
            now += .milliseconds(100)
            meter.add(.milliseconds(100), at: now)
        }
        #expect(abs(meter.rate(at: now) - 1) < 0.05)
        let busy = meter.rate(at: now)
        #expect(abs(meter.rate(at: now + WorkMeter.halfLife) - busy / 2) < 0.01)
        #expect(meter.rate(at: now + WorkMeter.halfLife * 20) < 1e-5)
    }

    @Test("a clock that goes back leaves the meter as it was")
    func earlierInstant() {
        let start = ContinuousClock.now
        var meter = WorkMeter(now: start)
        meter.add(.milliseconds(50), at: start)
        let rate = meter.rate(at: start)
        meter.add(.zero, at: start - .seconds(1))
        #expect(meter.rate(at: start) == rate)
    }
}

import NIOConcurrencyHelpers

/// Bytes that every connection of a server draws on together (messages
/// arriving, replies waiting), so that many connections, each within its
/// own bound, cannot together take more memory than the server allows.
final class MemoryBudget: Sendable {
    /// The most bytes held at once.
    let limit: Int
    private let held = NIOLockedValueBox((now: 0, peak: 0))

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes `count` bytes; false, taking nothing, when that would pass the limit.
    func reserve(_ count: Int) -> Bool {
        held.withLockedValue { held in
            guard count <= limit - held.now else { return false }
            held.now += count
            held.peak = max(held.peak, held.now)
            return true
        }
    }

    /// Gives back `count` bytes taken with ``reserve(_:)``.
    func release(_ count: Int) {
        held.withLockedValue { held in
            assert(count <= held.now, "released more than was reserved")
            held.now -= min(count, held.now)
        }
    }

    /// The bytes held now.
    var inUse: Int { held.withLockedValue { $0.now } }

    /// The most bytes held at once so far.
    var peak: Int { held.withLockedValue { $0.peak } }
}

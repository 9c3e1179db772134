import Dispatch

/// Two independent pieces of work run at the same time, each on its own core
/// when the machine has more than one (Dispatch runs them one after the
/// other when it has one).
///
/// For a save's two halves that only read the same immutable document: the
/// caller blocks until both are done, so the API stays synchronous and
/// nothing escapes.
enum Concurrently {
    /// Runs `first` and `second` at once and returns both results.
    static func run<A, B>(_ first: () -> A, _ second: () -> B) -> (A, B) {
        let results = Results<A, B>()
        withoutActuallyEscaping(first) { first in
            withoutActuallyEscaping(second) { second in
                let work = Work(first: first, second: second)
                DispatchQueue.concurrentPerform(iterations: 2) { index in
                    // Each slot is written by one worker and read only after
                    // concurrentPerform has returned.
                    if index == 0 { results.first = work.first() } else { results.second = work.second() }
                }
            }
        }
        guard let first = results.first, let second = results.second else {
            preconditionFailure("concurrentPerform returned before running both halves")
        }
        return (first, second)
    }

    /// The two closures, handed to Dispatch's workers; sound to share
    /// because the caller waits for both.
    private struct Work<A, B>: @unchecked Sendable {
        let first: () -> A
        let second: () -> B
    }

    private final class Results<A, B>: @unchecked Sendable {
        var first: A?
        var second: B?
    }
}

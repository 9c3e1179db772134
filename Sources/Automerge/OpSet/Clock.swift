/// A point in history as op-id coverage: for each actor index, the largest
/// op counter included (0 for none). An actor's changes are linear, so an op
/// is in the history iff its counter is at most its actor's entry.
struct Clock: Sendable, Equatable {
    private(set) var maxCounter: [UInt32] = []

    @inline(__always)
    func covers(_ id: OpId) -> Bool {
        let actor = Int(id.actor)
        return actor < maxCounter.count && id.counter <= maxCounter[actor] && id.counter > 0
    }

    mutating func include(actor: UInt32, upTo counter: UInt32) {
        let index = Int(actor)
        if index >= maxCounter.count {
            maxCounter.append(contentsOf: repeatElement(0, count: index + 1 - maxCounter.count))
        }
        if maxCounter[index] < counter { maxCounter[index] = counter }
    }
}

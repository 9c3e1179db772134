/// Each actor's smallest and largest counter among the ids to be stored in
/// an ``OpIdTable``, gathered in one pass before a bulk insert.
struct OpIdRanges {
    struct Range {
        var minCounter = UInt32.max
        var maxCounter: UInt32 = 0
        var count = 0

        mutating func note(_ counter: UInt32) {
            minCounter = min(minCounter, counter)
            maxCounter = max(maxCounter, counter)
            count += 1
        }
    }

    /// Ranges of the actors with small indices, by index: the common case.
    private var direct: [Range] = []
    /// The others: an array indexed by a large actor index would cost each
    /// table as much as the actor table, whatever its own size.
    private var indirect: [UInt32: Range] = [:]
    private static let directActors = 64

    /// Notes one id.
    @inline(__always)
    mutating func note(_ id: OpId) {
        let actor = Int(id.actor)
        guard actor < Self.directActors else {
            indirect[id.actor, default: Range()].note(id.counter)
            return
        }
        if actor >= direct.count { direct.append(contentsOf: repeatElement(Range(), count: actor + 1 - direct.count)) }
        direct[actor].note(id.counter)
    }

    /// Every actor noted, with its range, in increasing actor order.
    var ranges: [(actor: Int, range: Range)] {
        let small = direct.enumerated().lazy.filter { $0.element.count > 0 }.map { (actor: $0.offset, range: $0.element) }
        let large = indirect.map { (actor: Int($0.key), range: $0.value) }.sorted { $0.actor < $1.actor }
        return Array(small) + large
    }
}

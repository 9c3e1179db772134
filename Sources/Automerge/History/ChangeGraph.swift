import HeapModule

/// The history of a document: every applied change in the order it was
/// added (the order a saved document lists them), the heads, and the
/// causal clocks that historical reads need.
struct ChangeGraph: Sendable {
    private(set) var records: [ChangeRecord] = []
    private var indexOf: [ChangeHash: Int] = [:]
    /// For each actor index (the op set's, dense), its changes' record
    /// indices by sequence number - 1.
    private var byActor: [[Int]] = []
    private(set) var heads: Set<ChangeHash> = []

    var count: Int { records.count }

    func contains(_ hash: ChangeHash) -> Bool { indexOf[hash] != nil }

    func index(of hash: ChangeHash) -> Int? { indexOf[hash] }

    func record(_ hash: ChangeHash) -> ChangeRecord? { indexOf[hash].map { records[$0] } }

    /// The hashes of `record`'s dependencies, sorted bytewise.
    func dependencies(of record: ChangeRecord) -> [ChangeHash] { record.dependencyIndices.map { records[$0].hash }.sorted() }

    /// The last sequence number of `actor` (0 if none).
    func lastSequence(of actor: UInt32) -> UInt64 { Int(actor) < byActor.count ? UInt64(byActor[Int(actor)].count) : 0 }

    /// The hash of `actor`'s change with `sequence`.
    func hash(actor: UInt32, sequence: UInt64) -> ChangeHash? {
        guard sequence >= 1, Int(actor) < byActor.count else { return nil }
        let list = byActor[Int(actor)]
        guard sequence <= UInt64(list.count) else { return nil }
        return records[list[Int(sequence - 1)]].hash
    }

    /// Makes room for `count` more changes and an eighth more: adding a
    /// long history (a load) then neither grows the tables step by step
    /// nor, at the first change made after it, moves them whole (a 262k
    /// change history is 31 MB of records).
    mutating func reserveCapacity(_ count: Int) {
        let total = records.count + count
        let capacity = total + total / 8 + 16
        records.reserveCapacity(capacity)
        indexOf.reserveCapacity(capacity)
    }

    /// Adds a change whose dependencies are all present.
    /// (Consumed, so that it moves into the history rather than being
    /// copied, its five arrays and strings retained and released.)
    mutating func add(_ record: consuming ChangeRecord) {
        for dependency in record.dependencyIndices { heads.remove(records[dependency].hash) }
        heads.insert(record.hash)
        append(record)
    }

    /// Adds the changes of a document being loaded to an empty history:
    /// `count` changes in order (each after its dependencies), change `i`
    /// being `record(i)` with hash `hash(i)`, and the heads they make. A
    /// long history builds its hash index on a second core while its
    /// records go in, and takes its heads as given: kept change by change,
    /// they cost two hash-set operations per change.
    mutating func addLoaded(
        count: Int, hash: (Int) -> ChangeHash, heads loadedHeads: some Sequence<ChangeHash>, record: (Int) -> ChangeRecord
    ) {
        precondition(records.isEmpty, "a loaded document's history starts empty")
        var index = indexOf, added = records, actors = byActor
        (indexOf, records, byActor) = ([:], [], [])
        func fillIndex() { for position in 0..<count { index[hash(position)] = position } }
        func fillRecords() {
            for position in 0..<count {
                let record = record(position)
                Self.note(position, by: record.actor, in: &actors)
                added.append(record)
            }
        }
        if count >= Self.concurrentLoadThreshold {
            _ = Concurrently.run(fillIndex, fillRecords)
        } else {
            fillIndex()
            fillRecords()
        }
        (indexOf, records, byActor) = (index, added, actors)
        heads = Set(loadedHeads)
        assert(heads == Set(records.indices.filter { !dependedOn[$0] }.map { records[$0].hash }),
               "the loaded heads are the changes no other change depends on")
        assert(records.indices.allSatisfy { indexOf[records[$0].hash] == $0 }, "hash(i) is record(i)'s hash")
    }

    /// From how many changes a load builds its hash index on a second core.
    static let concurrentLoadThreshold = 4096

    /// For each record, whether another record depends on it (debug checks).
    private var dependedOn: [Bool] {
        var dependedOn = [Bool](repeating: false, count: records.count)
        for record in records { for index in record.dependencyIndices { dependedOn[index] = true } }
        return dependedOn
    }

    private mutating func append(_ record: consuming ChangeRecord) {
        assert(record.dependencyIndices.allSatisfy { $0 < records.count }, "dependencies must be applied first")
        indexOf[record.hash] = records.count
        Self.note(records.count, by: record.actor, in: &byActor)
        records.append(record)
    }

    /// Adds record index `position` to `actor`'s changes in `byActor`.
    private static func note(_ position: Int, by actor: UInt32, in byActor: inout [[Int]]) {
        if Int(actor) >= byActor.count { byActor += repeatElement([], count: Int(actor) - byActor.count + 1) }
        byActor[Int(actor)].append(position)
    }

    /// Record indices of every change reachable from `hashes` (inclusive).
    func ancestors(of hashes: some Sequence<ChangeHash>) -> [Bool] {
        var seen = [Bool](repeating: false, count: records.count)
        var stack = hashes.compactMap { indexOf[$0] }
        while let index = stack.popLast() {
            if seen[index] { continue }
            seen[index] = true
            stack.append(contentsOf: records[index].dependencyIndices)
        }
        return seen
    }

    /// The clock of the history that `heads` describe.
    func clock(heads: Set<ChangeHash>) -> Clock {
        var clock = Clock()
        let included = ancestors(of: heads)
        for (index, record) in records.enumerated() where included[index] {
            clock.include(actor: record.actor, upTo: UInt32(truncatingIfNeeded: record.maxOp))
        }
        return clock
    }

    /// Hashes in `heads` this graph does not have.
    func missing(_ heads: some Sequence<ChangeHash>) -> [ChangeHash] {
        heads.filter { indexOf[$0] == nil }.sorted()
    }

    /// Changes not reachable from `heads`, in graph order.
    func records(notReachableFrom heads: some Sequence<ChangeHash>) -> [ChangeRecord] {
        indices(notReachableFrom: heads).map { records[$0] }
    }

    /// Record indices of the changes not reachable from `heads` (hashes the
    /// graph lacks are ignored), in graph order.
    ///
    /// Walks back from our heads and from `heads` together, highest record
    /// index first, and stops once every change still to visit is reachable
    /// from `heads`: the cost follows the changes since `heads`, not the
    /// length of the history (a sync message after one new change in a long
    /// history visits a handful of records). Records are in causal order
    /// (a dependency's index is below its dependents'), so by the time a
    /// record is reached every change that could mark it reachable from
    /// `heads` has been visited.
    func indices(notReachableFrom heads: some Sequence<ChangeHash>) -> [Int] {
        let known = Set(heads.compactMap { indexOf[$0] })
        if known.isEmpty { return Array(records.indices) }
        var reachableFromHeads: [Int: Bool] = [:]
        var queue = Heap<Int>()
        var unreachableQueued = 0
        func visit(_ index: Int, reachable: Bool) {
            switch reachableFromHeads[index] {
            case nil:
                reachableFromHeads[index] = reachable
                queue.insert(index)
                if !reachable { unreachableQueued += 1 }
            case false? where reachable:
                reachableFromHeads[index] = true
                unreachableQueued -= 1
            default:
                break
            }
        }
        for index in known { visit(index, reachable: true) }
        for head in self.heads { visit(indexOf[head]!, reachable: false) }
        var result: [Int] = []
        while unreachableQueued > 0, let index = queue.popMax() {
            let reachable = reachableFromHeads[index]!
            if !reachable {
                result.append(index)
                unreachableQueued -= 1
            }
            for dependency in records[index].dependencyIndices {
                assert(dependency < index, "records are in causal order")
                visit(dependency, reachable: reachable)
            }
        }
        return result.reversed()
    }

    /// Removes from `hashes` every change reachable from `heads` (inclusive).
    func removeAncestors(of heads: some Sequence<ChangeHash>, from hashes: inout Set<ChangeHash>) {
        guard !hashes.isEmpty else { return }
        var seen = [Bool](repeating: false, count: records.count)
        var stack = heads.compactMap { indexOf[$0] }
        while let index = stack.popLast(), !hashes.isEmpty {
            if seen[index] { continue }
            seen[index] = true
            hashes.remove(records[index].hash)
            stack.append(contentsOf: records[index].dependencyIndices)
        }
    }
}

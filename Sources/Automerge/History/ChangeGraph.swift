/// The history of a document: every applied change in the order it was
/// added (the order a saved document lists them), the heads, and the
/// causal clocks that historical reads need.
struct ChangeGraph: Sendable {
    private(set) var records: [ChangeRecord] = []
    private var indexOf: [ChangeHash: Int] = [:]
    /// For each actor index, its changes' record indices by sequence number - 1.
    private var byActor: [UInt32: [Int]] = [:]
    private(set) var heads: Set<ChangeHash> = []

    var count: Int { records.count }

    func contains(_ hash: ChangeHash) -> Bool { indexOf[hash] != nil }

    func index(of hash: ChangeHash) -> Int? { indexOf[hash] }

    func record(_ hash: ChangeHash) -> ChangeRecord? { indexOf[hash].map { records[$0] } }

    /// The last sequence number of `actor` (0 if none).
    func lastSequence(of actor: UInt32) -> UInt64 { UInt64(byActor[actor]?.count ?? 0) }

    /// The hash of `actor`'s change with `sequence`.
    func hash(actor: UInt32, sequence: UInt64) -> ChangeHash? {
        guard sequence >= 1, let list = byActor[actor], sequence <= UInt64(list.count) else { return nil }
        return records[list[Int(sequence - 1)]].hash
    }

    /// Adds a change whose dependencies are all present.
    mutating func add(_ record: ChangeRecord) {
        precondition(record.dependencies.allSatisfy { indexOf[$0] != nil }, "dependencies must be applied first")
        indexOf[record.hash] = records.count
        byActor[record.actor, default: []].append(records.count)
        records.append(record)
        for dependency in record.dependencies { heads.remove(dependency) }
        heads.insert(record.hash)
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
    func indices(notReachableFrom heads: some Sequence<ChangeHash>) -> [Int] {
        let known = heads.filter { indexOf[$0] != nil }
        if Set(known) == self.heads { return [] }
        let included = ancestors(of: known)
        return records.indices.filter { !included[$0] }
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

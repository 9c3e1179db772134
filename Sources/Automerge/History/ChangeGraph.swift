import HeapModule

/// The history of a document: every applied change in the order it was
/// added (the order a saved document lists them), the heads, and the
/// causal clocks that historical reads need.
struct ChangeGraph: Sendable {
    private(set) var records: [ChangeRecord] = []
    private var index = ChangeHashIndex()
    /// Each record's bytes, message and extra bytes (``ChangeRecord/location``).
    private var bytes = ChangeByteStore()
    /// Each record's dependencies, as record indices, record after record
    /// (``ChangeRecord/dependencyStart``).
    private var dependencyList: [UInt32] = []
    /// For each actor index (the op set's, dense), its changes' record
    /// indices by sequence number - 1.
    private var byActor: [[Int]] = []
    private(set) var heads: Set<ChangeHash> = []
    /// The ops of every change, together.
    private(set) var opCount = 0

    var count: Int { records.count }

    func contains(_ hash: ChangeHash) -> Bool { index(of: hash) != nil }

    func index(of hash: ChangeHash) -> Int? {
        records.withUnsafeBufferPointer { records in index.position(of: hash) { records[$0].hash } }
    }

    func record(_ hash: ChangeHash) -> ChangeRecord? { index(of: hash).map { records[$0] } }

    /// The uncompressed change chunk of `record`.
    func bytes(of record: ChangeRecord) -> ArraySlice<UInt8> { bytes[record.location, count: Int(record.byteCount)] }

    /// The message of `record`.
    func message(of record: ChangeRecord) -> String? {
        guard record.messageByteCount != ChangeRecord.noMessage else { return nil }
        let all = bytes[record.location, count: Int(record.byteCount) + Int(record.messageByteCount)]
        return String(decoding: all.dropFirst(Int(record.byteCount)), as: UTF8.self)
    }

    /// The extra bytes of `record` (the bytes after its columns).
    func extraBytes(of record: ChangeRecord) -> ArraySlice<UInt8> {
        let skipped = Int(record.byteCount) + (record.messageByteCount == ChangeRecord.noMessage ? 0 : Int(record.messageByteCount))
        return bytes[record.location, count: skipped + Int(record.extraByteCount)].dropFirst(skipped)
    }

    /// The record indices of `record`'s dependencies.
    func dependencyIndices(of record: ChangeRecord) -> LazyMapSequence<ArraySlice<UInt32>, Int> {
        let start = Int(record.dependencyStart)
        return dependencyList[start..<start + Int(record.dependencyCount)].lazy.map(Int.init)
    }

    /// The change chunks of the records at `indices`, end to end.
    func concatenatedBytes(of indices: [Int]) -> [UInt8] {
        var concatenated: [UInt8] = []
        concatenated.reserveCapacity(indices.reduce(0) { $0 + Int(records[$1].byteCount) })
        for index in indices { concatenated.append(contentsOf: bytes(of: records[index])) }
        return concatenated
    }

    /// The hashes of `record`'s dependencies, sorted bytewise.
    func dependencies(of record: ChangeRecord) -> [ChangeHash] { dependencyIndices(of: record).map { records[$0].hash }.sorted() }

    /// The heap bytes of the records and what they keep here, estimated in
    /// constant time: the records, their bytes and dependencies, the hash
    /// index, each actor's list of its changes (an array of its own: a
    /// 32-byte header), and the heads. A history of many actors, or of many
    /// heads, keeps as much in those last two as in its records.
    var byteCount: Int {
        records.capacity * MemoryLayout<ChangeRecord>.stride + index.byteCount + bytes.byteCount
            + dependencyList.capacity * MemoryLayout<UInt32>.stride
            + byActor.capacity * MemoryLayout<[Int]>.stride + byActor.count * 32 + records.count * MemoryLayout<Int>.stride
            + heads.capacity * MemoryLayout<ChangeHash>.stride
    }

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
    /// nor, at the first change made after it, moves them whole.
    mutating func reserveCapacity(_ count: Int) {
        let total = records.count + count
        let capacity = total + total / 8 + 16
        records.reserveCapacity(capacity)
        dependencyList.reserveCapacity(dependencyList.count + count + count / 8 + 16)
        records.withUnsafeBufferPointer { records in index.reserveCapacity(capacity) { records[$0].hash } }
    }

    /// Adds a change whose dependencies are all present.
    mutating func add(_ entry: borrowing ChangeEntry) {
        assert(entry.dependencyIndices.allSatisfy { $0 < records.count }, "dependencies must be applied first")
        for dependency in entry.dependencyIndices { heads.remove(records[dependency].hash) }
        heads.insert(entry.hash)
        let record = Self.record(of: entry, into: &bytes, dependencyList: &dependencyList)
        records.withUnsafeBufferPointer { records in index.append(record.hash) { records[$0].hash } }
        Self.note(records.count, by: record.actor, in: &byActor)
        records.append(record)
        opCount += record.opCount
    }

    /// `entry` as a record, its variable parts added to `bytes` and `dependencyList`.
    private static func record(
        of entry: borrowing ChangeEntry, into bytes: inout ChangeByteStore, dependencyList: inout [UInt32]
    ) -> ChangeRecord {
        let dependencyStart = dependencyList.count
        precondition(dependencyStart + entry.dependencyIndices.count <= Int(UInt32.max), "history full")
        for dependency in entry.dependencyIndices { dependencyList.append(UInt32(dependency)) }
        let messageByteCount = entry.message.map { UInt32($0.utf8.count) } ?? ChangeRecord.noMessage
        let location: ChangeByteStore.Location, byteCount: Int
        switch entry.bytes {
        case .chunk(let chunk):
            (location, byteCount) = (bytes.append(chunk, message: entry.message, extraBytes: entry.extraBytes), chunk.count)
        case .stored(let stored, let count):
            (location, byteCount) = (stored, count)
        }
        return ChangeRecord(
            hash: entry.hash, actor: entry.actor, location: location,
            byteCount: UInt32(byteCount), messageByteCount: messageByteCount,
            extraByteCount: UInt32(entry.extraBytes.count),
            dependencyStart: UInt32(dependencyStart), dependencyCount: UInt32(entry.dependencyIndices.count),
            sequence: entry.sequence, startOp: entry.startOp, maxOp: entry.maxOp, time: entry.time)
    }

    /// Adds the changes of a document being loaded to an empty history:
    /// `count` changes in order (each after its dependencies), change `i`
    /// being `entry(i)` with hash `hash(i)`, and the heads they make; the
    /// history's bytes start as `bytes`, where entries given as
    /// ``ChangeEntry/Bytes/stored(_:byteCount:)`` are. A
    /// long history builds its hash index on a second core while its
    /// records go in, and takes its heads as given: kept change by change,
    /// they cost two hash-set operations per change.
    mutating func addLoaded(
        count: Int, hash: (Int) -> ChangeHash, heads loadedHeads: some Sequence<ChangeHash>,
        bytes loadedBytes: ChangeByteStore, entry: (Int) -> ChangeEntry
    ) {
        precondition(records.isEmpty, "a loaded document's history starts empty")
        var loadedIndex = index, added = records, actors = byActor, store = loadedBytes, list = dependencyList
        (index, records, byActor, bytes, dependencyList) = (ChangeHashIndex(), [], [], ChangeByteStore(), [])
        // The loops work on inout parameters: the variables these closures
        // capture are boxed (they may run on another thread), and each
        // access to a boxed variable is checked for exclusivity at run time.
        func fillIndex() { Self.fill(&loadedIndex, count: count, hash: hash) }
        func fillRecords() { Self.fill(&added, count: count, entry: entry, store: &store, list: &list, actors: &actors) }
        if count >= Self.concurrentLoadThreshold {
            _ = Concurrently.run(fillIndex, fillRecords)
        } else {
            fillIndex()
            fillRecords()
        }
        (index, records, byActor, bytes, dependencyList) = (loadedIndex, added, actors, store, list)
        heads = Set(loadedHeads)
        opCount = records.reduce(0) { $0 + $1.opCount }
        assert(heads == Set(records.indices.filter { !dependedOn[$0] }.map { records[$0].hash }),
               "the loaded heads are the changes no other change depends on")
        assert(records.indices.allSatisfy { index(of: records[$0].hash) == $0 }, "hash(i) is record(i)'s hash")
    }

    private static func fill(_ index: inout ChangeHashIndex, count: Int, hash: (Int) -> ChangeHash) {
        index.reserveCapacity(count, hashAt: hash)
        for position in 0..<count { index.append(hash(position), hashAt: hash) }
    }

    private static func fill(
        _ records: inout [ChangeRecord], count: Int, entry: (Int) -> ChangeEntry, store: inout ChangeByteStore,
        list: inout [UInt32], actors: inout [[Int]]
    ) {
        for position in 0..<count {
            let record = record(of: entry(position), into: &store, dependencyList: &list)
            note(position, by: record.actor, in: &actors)
            records.append(record)
        }
    }

    /// From how many changes a load builds its hash index on a second core.
    static let concurrentLoadThreshold = 4096

    /// For each record, whether another record depends on it (debug checks).
    private var dependedOn: [Bool] {
        var dependedOn = [Bool](repeating: false, count: records.count)
        for dependency in dependencyList { dependedOn[Int(dependency)] = true }
        return dependedOn
    }

    /// Adds record index `position` to `actor`'s changes in `byActor`.
    private static func note(_ position: Int, by actor: UInt32, in byActor: inout [[Int]]) {
        if Int(actor) >= byActor.count { byActor += repeatElement([], count: Int(actor) - byActor.count + 1) }
        byActor[Int(actor)].append(position)
    }

    /// Record indices of every change reachable from `hashes` (inclusive).
    func ancestors(of hashes: some Sequence<ChangeHash>) -> [Bool] {
        var seen = [Bool](repeating: false, count: records.count)
        var stack = hashes.compactMap { index(of: $0) }
        while let index = stack.popLast() {
            if seen[index] { continue }
            seen[index] = true
            stack.append(contentsOf: dependencyIndices(of: records[index]))
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
        heads.filter { index(of: $0) == nil }.sorted()
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
        let known = Set(heads.compactMap { index(of: $0) })
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
        for head in self.heads { visit(index(of: head)!, reachable: false) }
        var result: [Int] = []
        while unreachableQueued > 0, let index = queue.popMax() {
            let reachable = reachableFromHeads[index]!
            if !reachable {
                result.append(index)
                unreachableQueued -= 1
            }
            for dependency in dependencyIndices(of: records[index]) {
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
        var stack = heads.compactMap { index(of: $0) }
        while let index = stack.popLast(), !hashes.isEmpty {
            if seen[index] { continue }
            seen[index] = true
            hashes.remove(records[index].hash)
            stack.append(contentsOf: dependencyIndices(of: records[index]))
        }
    }
}

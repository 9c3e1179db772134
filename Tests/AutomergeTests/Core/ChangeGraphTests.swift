import PropertyBased
import Testing
import AutomergeTestSupport
@_spi(Storage) @testable import Automerge

// `ChangeGraph.indices(notReachableFrom:)` answers "which changes does a
// peer at these heads lack" for sync messages and `encodeChangesSince`. It
// walks back only as far as the changes since those heads; it must give
// exactly the changes that are not ancestors of them, in history order,
// for any shape of history.

@Suite("Change graph", .ownThread)
struct ChangeGraphTests {
    /// A history: for each change, up to three dependencies as offsets back
    /// from it (deduplicated; out-of-range offsets ignored), then which
    /// changes to name as heads and whether to add a hash the graph lacks.
    static let history = zip(
        Gen.int(in: 1...6).array(of: 0...3).array(of: 1...40),
        Gen.int(in: 0...60).array(of: 0...4),
        Gen.bool)

    static func hash(_ index: Int) -> ChangeHash {
        ChangeHash(bytes: (0..<32).map { UInt8(truncatingIfNeeded: index >> (($0 % 4) * 8)) ^ UInt8($0) })
    }

    static func graph(_ dependencyOffsets: [[Int]]) -> ChangeGraph {
        var graph = ChangeGraph()
        for (index, offsets) in dependencyOffsets.enumerated() {
            let dependencies = Set(offsets.filter { $0 <= index }.map { index - $0 }).sorted()
            graph.add(ChangeEntry(
                hash: hash(index), actor: 0, sequence: UInt64(index + 1), startOp: 1, maxOp: 0, time: 0, message: nil,
                dependencyIndices: dependencies[...], extraBytes: [], bytes: .chunk([])))
        }
        return graph
    }

    @Test("the changes not reachable from any heads are those that are not their ancestors, in history order")
    func notReachableMatchesAncestors() async {
        await propertyCheck(count: 500, input: Self.history) { offsets, named, addUnknown in
            let graph = Self.graph(offsets)
            var heads = named.filter { $0 < offsets.count }.map(Self.hash)
            if addUnknown { heads.append(Self.hash(1000)) }
            let ancestors = graph.ancestors(of: heads)
            let expected = graph.records.indices.filter { !ancestors[$0] }
            #expect(graph.indices(notReachableFrom: heads) == expected, "heads \(named)")
        }
    }

    @Test("from our own heads nothing is missing; from no known heads everything is")
    func extremes() {
        let graph = Self.graph([[], [1], [1], [1, 2], [1]])
        #expect(graph.indices(notReachableFrom: graph.heads).isEmpty)
        #expect(graph.indices(notReachableFrom: []) == [0, 1, 2, 3, 4])
        #expect(graph.indices(notReachableFrom: [Self.hash(99)]) == [0, 1, 2, 3, 4])
        #expect(graph.indices(notReachableFrom: [Self.hash(1)]) == [2, 3, 4])
    }

    /// A change whose bytes, message and extra bytes tell its index.
    static func entry(_ index: Int, dependencies: [Int]) -> ChangeEntry {
        ChangeEntry(
            hash: hash(index), actor: UInt32(index % 3), sequence: UInt64(index / 3 + 1), startOp: UInt64(index),
            maxOp: UInt64(index + 2), time: Int64(index) * 1000, message: index % 4 == 0 ? nil : "change \(index) ✓",
            dependencyIndices: dependencies[...], extraBytes: index % 5 == 0 ? [UInt8(index & 0xFF)] : [],
            bytes: .chunk(chunk(index)))
    }

    /// The bytes standing for change `index`'s chunk: 40 to 740 of them.
    static func chunk(_ index: Int) -> [UInt8] { (0..<(40 + index % 700)).map { UInt8(truncatingIfNeeded: $0 ^ index) } }

    /// What `entry(index)` stored, read back through the graph.
    static func expectStored(_ graph: ChangeGraph, _ index: Int, dependencies: [Int], sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = entry(index, dependencies: dependencies)
        guard let position = graph.index(of: expected.hash) else {
            Issue.record("change \(index) not found by its hash", sourceLocation: sourceLocation)
            return
        }
        let record = graph.records[position]
        #expect(position == index, sourceLocation: sourceLocation)
        #expect(Array(graph.bytes(of: record)) == chunk(index), sourceLocation: sourceLocation)
        #expect(graph.message(of: record) == expected.message, sourceLocation: sourceLocation)
        #expect(Array(graph.extraBytes(of: record)) == expected.extraBytes, sourceLocation: sourceLocation)
        #expect(Array(graph.dependencyIndices(of: record)) == dependencies, sourceLocation: sourceLocation)
        #expect((record.actor, record.sequence, record.startOp, record.maxOp, record.time)
            == (expected.actor, expected.sequence, expected.startOp, expected.maxOp, expected.time), sourceLocation: sourceLocation)
    }

    @Test("a long history keeps every change's bytes, message, extra bytes and dependencies, across byte blocks")
    func longHistoryKeepsEveryChange() {
        // About 3,000 changes of 40 to 740 bytes: more than four 256 KiB blocks.
        let count = 3000
        var graph = ChangeGraph()
        for index in 0..<count { graph.add(Self.entry(index, dependencies: index == 0 ? [] : [index - 1])) }
        for index in 0..<count { Self.expectStored(graph, index, dependencies: index == 0 ? [] : [index - 1]) }
        #expect(graph.index(of: Self.hash(count + 1)) == nil)
        #expect(graph.heads == [Self.hash(count - 1)])
    }

    @Test("a loaded history reads as the same history added change by change")
    func loadedHistoryMatchesAdded() {
        let count = ChangeGraph.concurrentLoadThreshold + 100
        // As a load's rebuild lays them out: chunk, message, extra bytes.
        var store = ChangeByteStore()
        let entries = (0..<count).map { index in
            let entry = Self.entry(index, dependencies: index == 0 ? [] : [index - 1])
            let location = store.append(Self.chunk(index), message: entry.message, extraBytes: entry.extraBytes)
            return ChangeEntry(
                hash: entry.hash, actor: entry.actor, sequence: entry.sequence, startOp: entry.startOp, maxOp: entry.maxOp,
                time: entry.time, message: entry.message, dependencyIndices: entry.dependencyIndices,
                extraBytes: entry.extraBytes, bytes: .stored(location, byteCount: Self.chunk(index).count))
        }
        var loaded = ChangeGraph()
        loaded.addLoaded(count: count, hash: { entries[$0].hash }, heads: [entries[count - 1].hash], bytes: store) { entries[$0] }
        for index in stride(from: 0, to: count, by: 7) { Self.expectStored(loaded, index, dependencies: index == 0 ? [] : [index - 1]) }
        // A change added after the load finds its dependency and joins the bytes.
        loaded.add(Self.entry(count, dependencies: [count - 1]))
        Self.expectStored(loaded, count, dependencies: [count - 1])
        #expect(loaded.heads == [Self.hash(count)])
    }

    @Test("a copy of a history (a fork) and the original add changes without seeing each other's")
    func copiesAreIndependent() {
        var original = ChangeGraph()
        for index in 0..<10 { original.add(Self.entry(index, dependencies: index == 0 ? [] : [index - 1])) }
        var fork = original
        original.add(Self.entry(10, dependencies: [9]))
        fork.add(Self.entry(11, dependencies: [9]))
        Self.expectStored(original, 10, dependencies: [9])
        #expect(original.index(of: Self.hash(11)) == nil)
        #expect(fork.index(of: Self.hash(10)) == nil)
        let forked = fork.records[10]
        #expect(Array(fork.bytes(of: forked)) == Self.chunk(11))
        for index in 0..<10 { Self.expectStored(fork, index, dependencies: index == 0 ? [] : [index - 1]) }
    }

    @Test("isLinear(since:): true for one line of edits since the heads, false once history forks, until a line follows a merge")
    func linearSince() throws {
        let doc = Document()
        try doc.put(obj: .ROOT, key: "k", value: .Int(1))
        doc.commitWith()
        let start = doc.heads()
        #expect(try doc.isLinear(since: []))
        let fork = doc.fork()
        try doc.put(obj: .ROOT, key: "k", value: .Int(2))
        try fork.put(obj: .ROOT, key: "k", value: .Int(3))
        doc.commitWith()
        fork.commitWith()
        #expect(try fork.isLinear(since: start))
        try doc.merge(other: fork)
        #expect(try !doc.isLinear(since: start), "two heads")
        try doc.put(obj: .ROOT, key: "other", value: .Int(4))
        doc.commitWith()
        #expect(doc.heads().count == 1)
        #expect(try !doc.isLinear(since: start), "a merge among the changes since")
        #expect(try !doc.isLinear(since: []))
        let merged = doc.heads()
        try doc.put(obj: .ROOT, key: "other", value: .Int(5))
        #expect(try doc.isLinear(since: merged))
        #expect(throws: AutomergeError.self) { try doc.isLinear(since: fork.heads().union(Set([ChangeHash(hexString: String(repeating: "ab", count: 32))!]))) }
    }
}

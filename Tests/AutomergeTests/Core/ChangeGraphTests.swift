import PropertyBased
import Testing
@testable import Automerge

// `ChangeGraph.indices(notReachableFrom:)` answers "which changes does a
// peer at these heads lack" for sync messages and `encodeChangesSince`. It
// walks back only as far as the changes since those heads; it must give
// exactly the changes that are not ancestors of them, in history order,
// for any shape of history.

@Suite("Change graph")
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
            graph.add(ChangeRecord(
                hash: hash(index), actor: 0, sequence: UInt64(index + 1), startOp: 1, maxOp: 0, time: 0, message: nil,
                dependencyIndices: dependencies, extraBytes: [], bytes: []))
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
}

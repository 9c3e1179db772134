import PropertyBased
import Testing
import AutomergeTestSupport
@_spi(Conformance) @testable import Automerge

/// Where RGA puts a new element among concurrent inserts: after the
/// reference, past every element with a higher op id. The tree skips such
/// runs a subtree at a time by the least id each node records.
@Suite("Sequence tree: RGA insertion order", .ownThread)
struct InsertionOrderTests {
    static let actors = ActorTable.numbered(24)

    /// Inserts of ids whose counters collide often (a few actors, counters
    /// one to three past the reference's), after random earlier elements.
    static let inserts = zip(Gen.int(in: 0...4095), Gen.int(in: 0...2), Gen.int(in: 0...23))
        .array(of: 0...2500)

    /// RGA's rule read off element by element: the definition the tree's
    /// search must agree with.
    static func linearLocation(in tree: SequenceTree, after reference: OpId, id: OpId) -> SequenceTree.Location? {
        guard var location = tree.locationAfter(reference) else { return nil }
        while let current = tree.nextExisting(from: location), actors.precedes(id, tree.id(at: current)) {
            location = SequenceTree.Location(leaf: current.leaf, index: current.index + 1)
        }
        return location
    }

    static func element(_ id: OpId, after reference: OpId) -> SequenceElement {
        SequenceElement(id: id, reference: reference, action: .set, value: .int(1), expand: false, markName: nil,
                        successors: SuccessorList())
    }

    @Test("random concurrent inserts go where reading element by element puts them, and every node's least id stays right")
    func matchesLinearReading() async {
        await propertyCheck(count: 40, input: Self.inserts) { inserts in
            var tree = SequenceTree(width: WidthRule(isText: false, encoding: .utf16))
            var ids: [OpId] = []
            var known = Set<OpId>()
            for (pick, bump, actor) in inserts {
                let reference = pick % 7 == 0 || ids.isEmpty ? OpId.root : ids[pick % ids.count]
                let id = OpId(counter: reference.counter + 1 + UInt32(bump), actor: UInt32(actor))
                guard known.insert(id).inserted else { continue }
                let expected = Self.linearLocation(in: tree, after: reference, id: id)
                let found = tree.insertionLocation(after: reference, id: id, actors: Self.actors)
                // The end of one leaf and the start of the next are one place in the sequence.
                let place = { (location: SequenceTree.Location?) in location.map { tree.nextExisting(from: $0).map(tree.id(at:)) } }
                #expect(place(found) == place(expected), "insert \(id.label) after \(reference.label)")
                guard place(found) == place(expected), let found else { return }
                tree.insert(Self.element(id, after: reference), after: reference, at: found, actors: Self.actors)
                ids.append(id)
            }
            #expect(throws: Never.self) { try tree.checkInvariants(); try tree.checkMinimumIds(actors: Self.actors) }
        }
    }

    /// Thousands of actors inserting after one element, each arriving with
    /// a lower id than all before it: each goes past all of them, to the end.
    @Test("an insert past a run of n higher ids compares O(log n) ids, not n", arguments: [false, true])
    func skipsRunsBySubtree(ascending: Bool) throws {
        let count = 4_096
        let actors = ActorTable.numbered(count)
        var tree = SequenceTree(width: WidthRule(isText: false, encoding: .utf16))
        var mostExamined = 0
        for step in 0..<count {
            let id = OpId(counter: 1, actor: UInt32(ascending ? step : count - 1 - step))
            var examined = 0
            let location = try #require(tree.insertionLocation(after: .root, id: id, actors: actors, examined: &examined))
            mostExamined = max(mostExamined, examined)
            tree.insert(Self.element(id, after: .root), after: .root, at: location, actors: actors)
        }
        var order: [UInt32] = []
        tree.forEachId { _, id in order.append(id.actor) }
        #expect(order == (0..<UInt32(count)).reversed(), "higher ids first")
        var height = 1, node = tree.root
        while !tree.nodes[Int(node)].isLeaf { node = tree.nodes[Int(node)].children[0]; height += 1 }
        let bound = 2 * SequenceTree.maxLeafElements + 2 * SequenceTree.maxChildren * height
        #expect(mostExamined <= bound, "one insert compared \(mostExamined) ids (tree height \(height))")
        try tree.checkInvariants()
        try tree.checkMinimumIds(actors: actors)
    }
}

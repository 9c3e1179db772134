import Testing
@_spi(Conformance) @testable import Automerge

/// The sequence tree's invariant check passes on trees that inserts built,
/// and reports each kind of damage by the invariant it breaks: a check
/// that could not fail would prove nothing.
@Suite("Sequence tree invariants")
struct SequenceTreeInvariantTests {
    /// A text tree of `count` elements, each inserted right after an earlier
    /// one spread over the sequence (so leaves split in the middle and the
    /// tree grows three levels), with a mark anchor every 50 elements and
    /// characters one and two UTF-16 units wide. Returns the ids in insert order.
    static func builtTree(count: Int = 2500) -> (tree: SequenceTree, ids: [OpId]) {
        var tree = SequenceTree(width: WidthRule(isText: true, encoding: .utf16))
        var ids: [OpId] = []
        for counter in 1...count {
            let reference = ids.isEmpty || counter % 97 == 0 ? OpId.root : ids[(counter * 7919) % ids.count]
            let id = OpId(counter: UInt32(counter), actor: UInt32(counter % 3))
            let isMark = counter % 50 == 0
            tree.insert(element(id, after: reference, action: isMark ? .mark : .set,
                                value: isMark ? .null : .string(counter % 5 == 0 ? "😀" : "a")),
                        after: reference, at: tree.locationAfter(reference)!, actors: .forTreeTests)
            ids.append(id)
        }
        return (tree, ids)
    }

    static func element(_ id: OpId, after reference: OpId, action: OpAction = .set, value: Primitive = .string("a")) -> SequenceElement {
        SequenceElement(id: id, reference: reference, action: action, value: value, expand: false,
                        markName: action == .mark && value != .null ? "bold" : nil, successors: SuccessorList())
    }

    /// The invariant `tree` breaks, or nil when its check passes.
    static func brokenInvariant(_ tree: SequenceTree) -> Invariant? {
        do {
            try tree.checkInvariants()
            return nil
        } catch {
            return error.invariant
        }
    }

    /// The height of the tree: 1 for a lone leaf.
    static func height(_ tree: SequenceTree) -> Int {
        var levels = 1
        var node = tree.root
        while !tree.nodes[Int(node)].isLeaf {
            node = tree.nodes[Int(node)].children[0]
            levels += 1
        }
        return levels
    }

    @Test("a tree built by inserts, three levels deep, passes its check")
    func builtTreePasses() throws {
        let (tree, _) = Self.builtTree()
        #expect(Self.height(tree) >= 3)
        #expect(tree.markCount > 0)
        try tree.checkInvariants()
    }

    @Test("an empty tree passes, and one left in bulk-load mode does not")
    func bulkLoadMode() throws {
        var tree = SequenceTree(width: WidthRule(isText: false, encoding: .utf16))
        try tree.checkInvariants()
        tree.beginBulkLoad()
        #expect(Self.brokenInvariant(tree) == .bulkLoadFinished)
        tree.endBulkLoad(actors: .forTreeTests)
        try tree.checkInvariants()
    }

    @Test("an element inserted twice is reported")
    func duplicateElement() {
        var (tree, ids) = Self.builtTree()
        tree.insert(Self.element(ids[10], after: .root), after: .root, at: tree.locationAfter(.root)!, actors: .forTreeTests)
        #expect(Self.brokenInvariant(tree) == .elementIdsUnique)
    }

    @Test("an element placed before the element it went after is reported")
    func elementBeforeItsReference() {
        var (tree, ids) = Self.builtTree()
        let reference = ids[20]
        tree.insert(Self.element(OpId(counter: 90_000, actor: 1), after: reference), after: reference,
                    at: tree.locationAfter(.root)!, actors: .forTreeTests)
        #expect(Self.brokenInvariant(tree) == .insertKeyPrecedesElement)
    }

    @Test("an element whose insert key names an actor index past 16 bits keeps it in the tree, and loses it only by damage")
    func wideInsertKeys() throws {
        var (tree, ids) = Self.builtTree(count: 300)
        let wideActor = OpId(counter: 5000, actor: 70_000)
        tree.insert(Self.element(wideActor, after: ids[3]), after: ids[3], at: tree.locationAfter(ids[3])!, actors: .forTreeTests)
        let afterWide = OpId(counter: 5001, actor: 2)
        tree.insert(Self.element(afterWide, after: wideActor), after: wideActor, at: tree.locationAfter(wideActor)!, actors: .forTreeTests)
        #expect(tree.wideReferences == [afterWide: wideActor])
        try tree.checkInvariants()
        #if DEBUG
        var lost = tree
        lost.wideReferencesForTesting = [:]
        #expect(Self.brokenInvariant(lost) == .insertKeyStored)
        var extra = tree
        extra.wideReferencesForTesting[ids[0]] = wideActor
        #expect(Self.brokenInvariant(extra) == .insertKeyStored)
        #endif
    }

    #if DEBUG
    /// Damage done through the test-only hooks, one per invariant.
    @Suite("Sequence tree invariants: damage")
    struct Damage {
        let tree: SequenceTree
        let ids: [OpId]

        init() { (tree, ids) = SequenceTreeInvariantTests.builtTree() }

        /// The leaves, in order.
        var leaves: [Int32] {
            var result: [Int32] = []
            var leaf = tree.firstLeaf
            while leaf >= 0 { result.append(leaf); leaf = tree.nodes[Int(leaf)].next }
            return result
        }

        func broken(_ damage: (inout SequenceTree) -> Void) -> Invariant? {
            var copy = tree
            damage(&copy)
            return SequenceTreeInvariantTests.brokenInvariant(copy)
        }

        /// Adds `delta` to the width of `node` and of every node above it.
        static func addUnits(_ delta: Int, from node: Int32, in tree: inout SequenceTree) {
            var node = node
            while node >= 0 {
                tree.nodesForTesting[Int(node)].units += delta
                node = tree.nodes[Int(node)].parent
            }
        }

        @Test("the root: out of range, or with a parent")
        func root() {
            #expect(broken { $0.rootForTesting = Int32($0.nodes.count) } == .rootIsTop)
            #expect(broken { $0.nodesForTesting[Int($0.root)].parent = 0 } == .rootIsTop)
        }

        @Test("a node held by two parents, and a node no parent holds")
        func reachability() {
            #expect(broken { tree in
                let root = Int(tree.root), child = tree.nodes[root].children[0]
                tree.nodesForTesting[root].children.append(child)
                tree.nodesForTesting[root].units += tree.nodes[Int(child)].units
            } == .nodeReachedOnce)
            #expect(broken { $0.nodesForTesting.append(SequenceTree.Node(isLeaf: true)) } == .everyNodeReachable)
        }

        @Test("a leaf over its size, an inner node with elements or no children")
        func nodeShapes() {
            let leaf = leaves[1]
            #expect(broken { tree in
                let extra = tree.nodes[Int(leaf)].elements[0]
                while tree.nodes[Int(leaf)].elements.count <= SequenceTree.maxLeafElements {
                    tree.nodesForTesting[Int(leaf)].elements.append(extra)
                }
            } == .leafShape)
            #expect(broken { $0.nodesForTesting[Int($0.root)].elements.append($0.nodes[Int(leaf)].elements[0]) } == .innerNodeShape)
            #expect(broken { tree in
                let inner = tree.nodes[Int(leaf)].parent
                let units = tree.nodes[Int(inner)].units
                tree.nodesForTesting[Int(inner)].children = []
                Self.addUnits(-units, from: inner, in: &tree)
            } == .innerNodeShape)
        }

        @Test("a child whose parent link names another node")
        func parentLink() {
            #expect(broken { $0.nodesForTesting[Int(leaves[2])].parent = $0.root } == .childKnowsParent)
        }

        @Test("a leaf hung one level higher than the others")
        func leafDepth() {
            #expect(broken { tree in
                var stray = SequenceTree.Node(isLeaf: true)
                stray.parent = tree.root
                tree.nodesForTesting[Int(tree.root)].children.append(Int32(tree.nodes.count))
                tree.nodesForTesting.append(stray)
            } == .leavesAtOneDepth)
        }

        @Test("a node width that is not the sum below it, an element width that is not its value's")
        func widths() {
            let leaf = leaves[3]
            #expect(broken { $0.nodesForTesting[Int(leaf)].units += 1 } == .nodeUnitsAreSums)
            #expect(broken { $0.nodesForTesting[Int($0.nodes[Int(leaf)].parent)].units -= 1 } == .nodeUnitsAreSums)
            #expect(broken { tree in
                tree.nodesForTesting[Int(leaf)].elements[0].units += 1
                Self.addUnits(1, from: leaf, in: &tree)
            } == .elementUnitsMatchValue)
        }

        @Test("a node's least id that is not the least under it: too high, too low, or missing")
        func minimumIds() throws {
            func brokenMinimum(_ damage: (inout SequenceTree) -> Void) -> Invariant? {
                var copy = tree
                damage(&copy)
                do { try copy.checkMinimumIds(actors: .forTreeTests) } catch { return error.invariant }
                return nil
            }
            try tree.checkMinimumIds(actors: .forTreeTests)
            let leaf = leaves[3], parent = tree.nodes[Int(leaves[3])].parent
            #expect(brokenMinimum { $0.nodesForTesting[Int(leaf)].minimumId = OpId(counter: 1_000_000, actor: 0) } == .nodeMinimumIsLeast)
            #expect(brokenMinimum { $0.nodesForTesting[Int(parent)].minimumId = OpId(counter: 0, actor: 1) } == .nodeMinimumIsLeast)
            #expect(brokenMinimum { $0.nodesForTesting[Int($0.root)].minimumId = .unset } == .nodeMinimumIsLeast)
        }

        @Test("next links that skip a leaf, or run past the last")
        func leafChain() {
            let (first, third) = (leaves[0], leaves[2])
            #expect(broken { $0.nodesForTesting[Int(first)].next = third } == .leafChainInOrder)
            #expect(broken { $0.nodesForTesting[Int(self.leaves.last!)].next = first } == .leafChainInOrder)
        }

        @Test("a leaf index entry naming another leaf, or an id that is no element")
        func leafIndex() {
            let element = tree.nodes[Int(leaves[4])].elements[0].id
            #expect(broken { $0.setIndexedLeafForTesting(leaves[5], of: element) } == .leafIndexMapsElements)
            #expect(broken { $0.setIndexedLeafForTesting(leaves[5], of: OpId(counter: 99_999, actor: 7)) } == .leafIndexCount)
        }

        @Test("element and mark counts that differ from the leaves")
        func counts() {
            #expect(broken { $0.elementCountForTesting += 1 } == .elementCount)
            #expect(broken { $0.markCountForTesting -= 1 } == .markCount)
        }

        @Test("a last-insert cache past its leaf's elements, or naming an inner node")
        func lastInserted() {
            #expect(broken { tree in
                let leaf = tree.lastInserted.leaf
                tree.lastInsertedForTesting = .init(leaf: leaf, index: tree.nodes[Int(leaf)].elements.count)
            } == .lastInsertedInBounds)
            #expect(broken { $0.lastInsertedForTesting = .init(leaf: $0.root, index: 0) } == .lastInsertedInBounds)
            var empty = SequenceTree(width: WidthRule(isText: false, encoding: .utf16))
            empty.lastInsertedForTesting = .init(leaf: 0, index: 0)
            #expect(SequenceTreeInvariantTests.brokenInvariant(empty) == .lastInsertedInBounds)
        }
    }
    #endif
}

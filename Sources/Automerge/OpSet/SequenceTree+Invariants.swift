extension SequenceTree: InvariantChecked {
    /// Verifies every fact the tree's operations rely on without checking
    /// (see ``Invariant``) and throws the first broken one. O(n) in the
    /// elements; reads only, and indexes nothing before checking its range,
    /// so a corrupted tree is reported rather than trapping.
    func checkInvariants() throws(InvariantViolation) {
        guard indexed, !unitsDeferred else {
            throw broken(.bulkLoadFinished, "id index built: \(indexed), widths maintained: \(!unitsDeferred)")
        }
        let leaves = try checkNodes()
        try checkLeafChain(leaves)
        try checkElements(in: leaves)
        try checkLastInserted()
        try checkLeafIndexTable()
    }

    /// Verifies that each node records the least id under it (compared in
    /// `actors`' order, which ``checkInvariants()`` does not have). Call
    /// it after ``checkInvariants()``, which checks the shape it walks.
    func checkMinimumIds(actors: ActorTable) throws(InvariantViolation) {
        _ = try leastId(under: root, actors: actors)
    }

    /// The least id under `node`, checked against what `node` records.
    private func leastId(under node: Int32, actors: ActorTable) throws(InvariantViolation) -> OpId {
        var least = OpId.unset
        if nodes[Int(node)].isLeaf {
            for index in 0..<count(ofLeaf: node) {
                let id = id(at: Location(leaf: node, index: index))
                guard Int(id.actor) < actors.count else {
                    throw broken(.nodeMinimumIsLeast, "element \(id.label) of leaf \(node) names an unknown actor")
                }
                least = actors.least(least, id)
            }
        } else {
            for child in nodes[Int(node)].children { least = actors.least(least, try leastId(under: child, actors: actors)) }
        }
        let recorded = nodes[Int(node)].minimumId
        guard recorded == least else {
            throw broken(.nodeMinimumIsLeast, "node \(node) records \(recorded.isUnset ? "none" : recorded.label), "
                         + "the least id under it is \(least.isUnset ? "none" : least.label)")
        }
        return least
    }

    private func broken(_ invariant: Invariant, _ detail: String) -> InvariantViolation {
        InvariantViolation(invariant: invariant, structure: "sequence tree", detail: detail)
    }

    /// Walks the nodes from the root, checking their shape, links and
    /// widths; returns the leaves in tree order.
    private func checkNodes() throws(InvariantViolation) -> [Int32] {
        guard root >= 0, Int(root) < nodes.count else { throw broken(.rootIsTop, "root \(root) of \(nodes.count) nodes") }
        guard nodes[Int(root)].parent == -1 else { throw broken(.rootIsTop, "root \(root) has parent \(nodes[Int(root)].parent)") }
        var reached = [Bool](repeating: false, count: nodes.count)
        var leaves: [Int32] = []
        var leafDepth: Int?
        // Children are pushed last to first, so leaves come off in order.
        var pending: [(node: Int32, depth: Int)] = [(root, 0)]
        while let (index, depth) = pending.popLast() {
            guard !reached[Int(index)] else { throw broken(.nodeReachedOnce, "node \(index) is reached twice from the root") }
            reached[Int(index)] = true
            let node = nodes[Int(index)]
            if node.isLeaf {
                // The arena range first: a packed leaf is read through it.
                guard node.isPacked ? node.elements.isEmpty && packedArena.holds(node.packedPlace)
                          : node.packedPlace == .none else {
                    throw broken(.leafShape, "leaf \(index) (packed: \(node.isPacked)) holds \(node.elements.count) elements "
                                 + "and arena place \(node.packedPlace) (the arena has \(packedArena.blockCount) blocks)")
                }
                guard node.children.isEmpty, count(ofLeaf: index) <= Self.maxLeafElements else {
                    throw broken(.leafShape, "leaf \(index) holds \(count(ofLeaf: index)) elements (packed: \(node.isPacked)) "
                                 + "and \(node.children.count) children")
                }
                if let leafDepth, leafDepth != depth {
                    throw broken(.leavesAtOneDepth, "leaf \(index) is at depth \(depth), an earlier leaf at \(leafDepth)")
                }
                leafDepth = depth
                let sum = withLeafElements(index) { $0.reduce(0) { $0 + Int($1.units) } }
                guard node.units == sum else { throw broken(.nodeUnitsAreSums, "leaf \(index) records \(node.units) units, its elements \(sum)") }
                leaves.append(index)
                continue
            }
            guard node.elements.isEmpty, !node.isPacked, (1...Self.maxChildren).contains(node.children.count) else {
                throw broken(.innerNodeShape, "node \(index) holds \(node.children.count) children and \(node.elements.count) elements")
            }
            var sum = 0
            for child in node.children {
                guard child >= 0, Int(child) < nodes.count else {
                    throw broken(.innerNodeShape, "node \(index) has child \(child) of \(nodes.count) nodes")
                }
                guard nodes[Int(child)].parent == index else {
                    throw broken(.childKnowsParent, "node \(child), a child of \(index), names \(nodes[Int(child)].parent) as its parent")
                }
                sum += nodes[Int(child)].units
            }
            guard node.units == sum else { throw broken(.nodeUnitsAreSums, "node \(index) records \(node.units) units, its children \(sum)") }
            pending.append(contentsOf: node.children.reversed().map { ($0, depth + 1) })
        }
        if let unreached = reached.firstIndex(of: false) {
            throw broken(.everyNodeReachable, "node \(unreached) of \(nodes.count) is not reachable from root \(root)")
        }
        return leaves
    }

    /// The next links must visit exactly `leaves`, in order, from the first leaf.
    private func checkLeafChain(_ leaves: [Int32]) throws(InvariantViolation) {
        var leaf = firstLeaf
        for (position, expected) in leaves.enumerated() {
            guard leaf == expected else {
                throw broken(.leafChainInOrder, "leaf \(position) in tree order is node \(expected), the links reach \(leaf)")
            }
            leaf = nodes[Int(leaf)].next
        }
        guard leaf == -1 else { throw broken(.leafChainInOrder, "the last leaf, node \(leaves.last ?? -1), links to \(leaf)") }
    }

    /// Checks each element in document order, and the tree's counts of them.
    private func checkElements(in leaves: [Int32]) throws(InvariantViolation) {
        // Packed: a set of OpId hashed through its synthesized conformance, unoptimized in debug builds.
        var seen = Set<UInt64>(minimumCapacity: elementCount)
        func packed(_ id: OpId) -> UInt64 { UInt64(id.counter) << 32 | UInt64(id.actor) }
        var total = 0, marks = 0, wideKeys = 0, packedElements = 0
        for leaf in leaves {
            if nodes[Int(leaf)].isPacked { packedElements += count(ofLeaf: leaf) }
            for element in withLeafElements(leaf, { Array($0) }) {
                let id = element.id
                guard seen.insert(packed(id)).inserted else { throw broken(.elementIdsUnique, "element \(id.label) appears twice") }
                let units = element.units(under: width)
                guard element.units == units else {
                    throw broken(.elementUnitsMatchValue, "element \(id.label) records \(element.units) units, its winning op is \(units) wide")
                }
                let reference = try insertKey(of: element)
                if element.reference == nil { wideKeys += 1 }
                guard reference.isRoot || (reference != id && seen.contains(packed(reference))) else {
                    throw broken(.insertKeyPrecedesElement, "element \(id.label) went after \(reference.label), which is not an earlier element")
                }
                guard self.leaf(of: id) == leaf else {
                    throw broken(.leafIndexMapsElements,
                                 "element \(id.label) is in leaf \(leaf), the indexes say \(self.leaf(of: id).map(String.init) ?? "none")")
                }
                if element.isMark { marks += 1 }
                total += 1
            }
        }
        guard total == elementCount else { throw broken(.elementCount, "the tree counts \(elementCount) elements, its leaves hold \(total)") }
        guard marks == markCount else { throw broken(.markCount, "the tree counts \(markCount) mark anchors, its leaves hold \(marks)") }
        guard wideKeys == wideReferences.count else {
            throw broken(.insertKeyStored, "the tree keeps \(wideReferences.count) wide insert keys for \(wideKeys) elements that need one")
        }
        // Packed leaves' elements are found through the run index, unless the element index had them first.
        guard leafOfElement.count <= total, leafOfElement.count >= total - packedElements else {
            throw broken(.leafIndexCount,
                         "the leaf index holds \(leafOfElement.count) entries for \(total) elements, \(packedElements) of them packed")
        }
    }

    /// The element's insert key, kept either packed in it or wide by the tree, never both.
    private func insertKey(of element: SequenceElement) throws(InvariantViolation) -> OpId {
        let wide = wideReferences.isEmpty ? nil : wideReferences[element.id]
        if let packed = element.reference {
            guard wide == nil else { throw broken(.insertKeyStored, "element \(element.id.label) holds its key packed, and the tree keeps another") }
            return packed
        }
        guard let wide else { throw broken(.insertKeyStored, "element \(element.id.label) has no insert key") }
        guard wide.actor >= UInt32(UInt16.max) else {
            throw broken(.insertKeyStored, "element \(element.id.label) has a wide key \(wide.label) that fits the packed form")
        }
        return wide
    }

    private func checkLastInserted() throws(InvariantViolation) {
        let recent = lastInserted
        if recent.leaf == -1 {
            guard elementCount == 0 else { throw broken(.lastInsertedInBounds, "no insert recorded, yet \(elementCount) elements") }
            return
        }
        guard recent.leaf >= 0, Int(recent.leaf) < nodes.count, nodes[Int(recent.leaf)].isLeaf,
              recent.index >= 0, recent.index < count(ofLeaf: recent.leaf) else {
            throw broken(.lastInsertedInBounds, "the last insert is recorded at leaf \(recent.leaf), index \(recent.index)")
        }
    }

    /// The leaf index's own check.
    private func checkLeafIndexTable() throws(InvariantViolation) {
        do { try leafOfElement.checkInvariants() } catch { throw error.within("leaf index") }
    }
}

/// Reads that see packed leaves (``PackedLeaf``) and element leaves alike.
extension SequenceTree {
    /// The number of elements in `leaf`.
    @inline(__always)
    func count(ofLeaf leaf: Int32) -> Int {
        if nodes[Int(leaf)].isPacked { return packedCount(of: leaf) }
        return nodes[Int(leaf)].elements.count
    }

    /// Calls `body` with the elements of `leaf` in place, a packed leaf's
    /// decoded.
    @inline(__always)
    func withLeafElements<R>(_ leaf: Int32, _ body: (UnsafeBufferPointer<SequenceElement>) throws -> R) rethrows -> R {
        if nodes[Int(leaf)].isPacked { return try packedLeaf(leaf).elements(under: width).withUnsafeBufferPointer(body) }
        return try nodes[Int(leaf)].elements.withUnsafeBufferPointer(body)
    }

    // Reads of one packed leaf on an edit's path: out of line and
    // read-only, as PackedLeaf's own are. Inlined, the arena reference a
    // leaf is read through made every edit copy the tree it reads through
    // a pointer to its object (retaining every array in it).

    @inline(never) @_effects(readonly)
    func packedCount(of leaf: Int32) -> Int { packedLeaf(leaf).count }

    @inline(never) @_effects(readonly)
    func packedElement(at location: Location) -> SequenceElement {
        packedLeaf(location.leaf).element(at: location.index, under: width)
    }

    @inline(never) @_effects(readonly)
    func packedId(at location: Location) -> OpId { packedLeaf(location.leaf).id(at: location.index) }

    @inline(never) @_effects(readonly)
    func packedUnits(at location: Location) -> Int32 { packedLeaf(location.leaf).units(at: location.index, under: width) }

    @inline(never) @_effects(readonly)
    func packedUnits(before location: Location) -> Int {
        packedLeaf(location.leaf).units(before: location.index, under: width)
    }

    @inline(never) @_effects(readonly)
    func packedIndex(of id: OpId, in leaf: Int32) -> Int? { packedLeaf(leaf).index(of: id) }

    @inline(never) @_effects(readonly)
    func packedElement(coveringUnit offset: Int, in leaf: Int32) -> (index: Int, start: Int)? {
        packedLeaf(leaf).element(coveringUnit: offset, under: width)
    }

    @inline(never) @_effects(readonly)
    func packedLastVisibleIndex(in leaf: Int32) -> Int? { packedLeaf(leaf).lastVisibleIndex(under: width) }

    /// Calls `body` with each element's leaf and id in document order,
    /// reading packed leaves' ids without decoding their elements; with
    /// `packed` false, the elements of unpacked leaves only.
    func forEachId(packed: Bool = true, _ body: (Int32, OpId) -> Void) {
        var leaf = firstLeaf
        while leaf >= 0 {
            let current = leaf
            if nodes[Int(leaf)].isPacked {
                if packed { packedLeaf(leaf).forEachId { _, id in body(current, id) } }
            } else {
                nodes[Int(leaf)].elements.withUnsafeBufferPointer { elements in
                    for index in elements.indices { body(current, elements[index].id) }
                }
            }
            leaf = nodes[Int(leaf)].next
        }
    }

    /// How many leaves are packed, the elements they hold, and the heap
    /// bytes of the arena that holds them.
    var packedStatistics: (leaves: Int, elements: Int, bytes: Int) {
        var leaves = 0, elements = 0
        for index in nodes.indices where nodes[index].isPacked {
            leaves += 1
            elements += packedLeaf(Int32(index)).count
        }
        return (leaves, elements, packedArena.capacity)
    }
}

/// The ids of a tree's packed leaves, as runs of consecutive counters of
/// one actor, each with its leaf, sorted by actor and first counter: built
/// when a load has packed the leaves (``SequenceTree/ensureIndexed()``).
///
/// A leaf unpacked later puts its ids in the element index, which is read
/// first; its entries here stay, and a lookup that reaches one finds the
/// leaf no longer packed and ignores it.
struct PackedRunIndex: Sendable {
    struct Entry: Sendable {
        var actor: UInt32
        var first: UInt32
        var length: UInt32
        var leaf: Int32
    }

    private(set) var entries: [Entry] = []

    init() {}

    init(packedLeavesOf tree: SequenceTree) {
        // Sized exactly: thousands of short texts each keep theirs for good.
        var leaf = tree.firstLeaf, runs = 0
        while leaf >= 0 {
            if tree.nodes[Int(leaf)].isPacked { runs += tree.packedLeaf(leaf).runCount }
            leaf = tree.nodes[Int(leaf)].next
        }
        entries.reserveCapacity(runs)
        leaf = tree.firstLeaf
        while leaf >= 0 {
            if tree.nodes[Int(leaf)].isPacked {
                let current = leaf
                tree.packedLeaf(leaf).forEachRun { first, length in
                    entries.append(Entry(actor: first.actor, first: first.counter, length: UInt32(length), leaf: current))
                }
            }
            leaf = tree.nodes[Int(leaf)].next
        }
        assert(entries.count == runs, "a packed leaf's run count is not its runs")
        entries.sort { ($0.actor, $0.first) < ($1.actor, $1.first) }
    }

    var isEmpty: Bool { entries.isEmpty }

    /// The leaf the entry for `id` names, if any: a packed leaf holding
    /// it, unless that leaf has been unpacked since (the caller checks).
    /// Takes no tree: a tree passed from a read through a pointer is copied.
    func leaf(of id: OpId) -> Int32? {
        // The last entry at or before `id`, by binary search.
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if (entries[middle].actor, entries[middle].first) <= (id.actor, id.counter) { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let entry = entries[low - 1]
        guard entry.actor == id.actor, id.counter - entry.first < entry.length else { return nil }
        return entry.leaf
    }
}

/// The elements of one list or text object in RGA order (deleted elements
/// included), as a B+ tree whose nodes carry the total width of their
/// visible elements.
///
/// Lookups by index, positions of element ids and inserts all take
/// O(log n): inner nodes are summed on the way down, an element id maps to
/// its leaf, and leaves know their parents so a position is summed on the
/// way up. Nodes live in one array and refer to each other by index, which
/// keeps the tree a value type (copy-on-write for forks) without per-node
/// reference counting.
struct SequenceTree: Sendable {
    struct Node: Sendable {
        // Laid out so that the node takes 56 bytes.
        var parent: Int32 = -1
        /// The next leaf in order (leaves only).
        var next: Int32 = -1
        var elements: [SequenceElement] = []
        /// Where a packed leaf's bytes (see ``PackedLeaf``) are in the
        /// tree's ``PackedArena``; ``PackedArena/Place/none`` for any other node.
        var packedPlace = PackedArena.Place.none
        var isLeaf: Bool
        /// Whether the leaf's elements are in the arena at ``packedPlace``
        /// rather than in ``elements``. Stored, not computed: a computed
        /// flag brought back copies of the whole tree in the per-keystroke
        /// read-back.
        var isPacked = false
        var children: [Int32] = []
        var units: Int = 0
        /// The least element id (by ``ActorTable/precedes(_:_:)``) under
        /// this node, ``OpId/unset`` while it holds none or a load defers
        /// it: RGA's search for an insert's place skips runs of higher ids
        /// a node at a time (``insertionLocation(after:id:actors:)``).
        var minimumId = OpId.unset
    }

    /// A place in the tree: a leaf and an index in it.
    struct Location: Equatable {
        var leaf: Int32
        var index: Int
    }

    static let maxLeafElements = 64
    static let maxChildren = 32

    private(set) var nodes: [Node]
    private(set) var root: Int32 = 0
    /// The first leaf never changes: splits move the right half out.
    let firstLeaf: Int32 = 0
    private(set) var leafOfElement = OpIdTable()
    /// The element index's size and work (see ``OpIdTable/Statistics``).
    var elementIndexStatistics: OpIdTable.Statistics { leafOfElement.statistics }
    /// False while a document is being loaded: appends then skip the id
    /// index, which ``ensureIndexed()`` builds in one pass at the right size.
    private(set) var indexed = true
    /// True while a document is being loaded: appends and updates leave the
    /// nodes' unit counts and minimum ids alone (walking up the tree per
    /// element was a tenth of a load) and ``endBulkLoad(actors:)`` works
    /// them out once, bottom up.
    private(set) var unitsDeferred = false
    /// Number of elements, visible or not.
    private(set) var elementCount = 0
    let width: WidthRule
    /// Where the last insert put its element, if it is still there (checked
    /// on use: any later change may have moved it); leaf -1 before any.
    /// Not an optional: its tag byte made the tree 136 bytes, past the 128
    /// that Swift copies in registers, and each read of a length through a
    /// pointer to the object then called memcpy.
    private(set) var lastInserted = Location(leaf: -1, index: 0)
    /// How many elements are mark anchors: with none, inserts need not look
    /// past the insertion point for sticky anchors.
    private(set) var markCount = 0
    /// Tables the tree rarely writes, behind one reference and nil while
    /// empty: with a field each the tree passed 4 references and 120 bytes,
    /// and reads through a pointer to an object copied it (retaining each
    /// reference) on every keystroke.
    private var sideTables: SideTables?

    final class SideTables: @unchecked Sendable {  // written only while uniquely referenced (updateSideTables)
        /// The insert op's key of each element that cannot hold it (its actor
        /// index needs more than 16 bits; see ``SequenceElement/reference``).
        var wideReferences: [OpId: OpId] = [:]
        /// Where the elements of packed leaves are, which ``leafOfElement``
        /// does not hold: a run of consecutive ids costs one 16-byte entry
        /// here where the index takes 4 bytes an id (see ``PackedRunIndex``).
        var packedRuns = PackedRunIndex()
        /// The packed leaves' bytes.
        var packedArena = PackedArena()
    }

    /// See ``SideTables/wideReferences``.
    var wideReferences: [OpId: OpId] { sideTables?.wideReferences ?? [:] }
    /// See ``SideTables/packedRuns``.
    var packedRuns: PackedRunIndex { sideTables?.packedRuns ?? PackedRunIndex() }
    /// See ``SideTables/packedArena``.
    var packedArena: PackedArena { sideTables?.packedArena ?? PackedArena() }

    /// Writes the side tables, copying them first if another tree shares them.
    private mutating func updateSideTables(_ body: (SideTables) -> Void) {
        if sideTables == nil || !isKnownUniquelyReferenced(&sideTables) {
            let copy = SideTables()
            copy.wideReferences = wideReferences
            copy.packedRuns = packedRuns
            copy.packedArena = packedArena
            sideTables = copy
        }
        body(sideTables!)
    }

    init(width: WidthRule) {
        self.width = width
        nodes = Self.emptyNodes
    }

    /// The nodes of an empty tree, one buffer shared by every tree until its
    /// first write: every map carries a tree it never writes, and a buffer
    /// of its own each was 100 bytes a map.
    private static let emptyNodes = [Node(isLeaf: true)]

    /// Total width of the visible elements.
    var units: Int { nodes[Int(root)].units }

    func contains(_ id: OpId) -> Bool {
        assert(indexed, "the element index is built after loading")
        return leaf(of: id) != nil
    }

    /// The leaf holding the element `id`.
    @inline(__always)
    func leaf(of id: OpId) -> Int32? {
        if let leaf = leafOfElement[id] { return leaf }
        if nodes.count == 1 {
            // A tree of one leaf has no run index (see ensureIndexed()).
            return nodes[0].isPacked && packedIndex(of: id, in: 0) != nil ? 0 : nil
        }
        guard let sideTables, !sideTables.packedRuns.isEmpty, let leaf = sideTables.packedRuns.leaf(of: id),
              Int(leaf) < nodes.count, nodes[Int(leaf)].isPacked else { return nil }
        return leaf
    }

    /// Stops maintaining the id index and the nodes' unit counts until
    /// ``endBulkLoad()`` (bulk appends). Nothing may read positions or
    /// lengths in between.
    mutating func beginBulkLoad() {
        indexed = false
        unitsDeferred = true
        leafOfElement = OpIdTable()
    }

    /// Builds what ``beginBulkLoad()`` stopped maintaining: the id index
    /// and every node's unit count and minimum id; packs the leaves still
    /// unpacked.
    mutating func endBulkLoad(actors: ActorTable) {
        var leaf = firstLeaf
        while leaf >= 0 {
            pack(leaf)
            leaf = nodes[Int(leaf)].next
        }
        trimPackedArena()
        ensureIndexed()
        guard unitsDeferred else { return }
        unitsDeferred = false
        _ = sumUnits(of: root)
        setLeafMinimumIds(actors: actors)
        setMinimumIds(of: root, actors: actors)
    }

    /// Sets each leaf's minimum id, in one pass over the ids.
    private mutating func setLeafMinimumIds(actors: ActorTable) {
        var leafMinimums: [(leaf: Int32, id: OpId)] = []
        forEachId { leaf, id in
            if let last = leafMinimums.last, last.leaf == leaf {
                if actors.precedes(id, last.id) { leafMinimums[leafMinimums.count - 1].id = id }
            } else {
                leafMinimums.append((leaf, id))
            }
        }
        for (leaf, id) in leafMinimums { nodes[Int(leaf)].minimumId = id }
    }

    /// Sets the minimum ids of `node` and the inner nodes under it from their leaves'.
    private mutating func setMinimumIds(of node: Int32, actors: ActorTable) {
        guard !nodes[Int(node)].isLeaf else { return }
        for child in nodes[Int(node)].children { setMinimumIds(of: child, actors: actors) }
        nodes[Int(node)].minimumId = minimumId(among: nodes[Int(node)].children, actors: actors)
    }

    /// Lowers the minimum id of `node` and its ancestors to `id` where it
    /// is lower; stops at the first ancestor already at or below it.
    private mutating func lowerMinimumId(from node: Int32, to id: OpId, actors: ActorTable) {
        var node = node
        while node >= 0, nodes[Int(node)].minimumId.isUnset || actors.precedes(id, nodes[Int(node)].minimumId) {
            nodes[Int(node)].minimumId = id
            node = nodes[Int(node)].parent
        }
    }

    /// The least of the minimum ids of `children`.
    private func minimumId(among children: some Sequence<Int32>, actors: ActorTable) -> OpId {
        children.reduce(OpId.unset) { least, child in actors.least(least, nodes[Int(child)].minimumId) }
    }

    /// Sets the unit counts of `node` and the nodes under it from their elements.
    private mutating func sumUnits(of node: Int32) -> Int {
        let units: Int
        if nodes[Int(node)].isPacked {
            units = packedLeaf(node).units
        } else if nodes[Int(node)].isLeaf {
            units = nodes[Int(node)].elements.withUnsafeBufferPointer { $0.reduce(0) { $0 + Int($1.units) } }
        } else {
            var total = 0
            for child in nodes[Int(node)].children { total += sumUnits(of: child) }
            units = total
        }
        nodes[Int(node)].units = units
        return units
    }

    /// Builds the id index if bulk appends skipped it.
    mutating func ensureIndexed() {
        guard !indexed else { return }
        indexed = true
        // Ids only, read in place: copying elements out of the leaves
        // retained and released their values. Packed leaves' ids go to the
        // run index instead.
        var ranges = OpIdRanges()
        var entries = 0
        forEachId(packed: false) { _, id in ranges.note(id); entries += 1 }
        leafOfElement.reserve(ranges, entries: entries)
        var table = leafOfElement
        leafOfElement = OpIdTable()
        forEachId(packed: false) { leaf, id in table[id] = leaf }
        leafOfElement = table
        // A tree of one leaf is its own index: thousands of short lists
        // and texts each kept a run index of a few entries.
        guard nodes.count > 1 else { return }
        let runs = PackedRunIndex(packedLeavesOf: self)
        if !runs.isEmpty { updateSideTables { $0.packedRuns = runs } }
    }

    // MARK: Reading

    subscript(location: Location) -> SequenceElement {
        if nodes[Int(location.leaf)].isPacked { return packedElement(at: location) }
        return nodes[Int(location.leaf)].elements[location.index]
    }

    /// Whether `id` is the insert op or an update of the element at
    /// `location`, read in place.
    func element(at location: Location, isOrUpdatedBy id: OpId) -> Bool {
        // A packed element has no updates.
        if nodes[Int(location.leaf)].isPacked { return self.id(at: location) == id }
        return nodes[Int(location.leaf)].elements.withUnsafeBufferPointer { elements in
            elements[location.index].id == id || elements[location.index].updates.contains { $0.id == id }
        }
    }

    /// The id of the element at `location`, without copying the element.
    func id(at location: Location) -> OpId {
        if nodes[Int(location.leaf)].isPacked { return packedId(at: location) }
        return nodes[Int(location.leaf)].elements[location.index].id
    }

    /// The width of the element at `location`, without copying the element.
    func units(at location: Location) -> Int32 {
        if nodes[Int(location.leaf)].isPacked { return packedUnits(at: location) }
        return nodes[Int(location.leaf)].elements[location.index].units
    }

    /// Calls `body` with the element at `location` in place (a copy retains
    /// and releases its value, updates and mark name). Inlined: called
    /// through a pointer to the object out of line, it copied the tree.
    @inline(__always)
    func withElement<R>(at location: Location, _ body: (UnsafePointer<SequenceElement>) -> R) -> R {
        if nodes[Int(location.leaf)].isPacked {
            let element = packedElement(at: location)
            return withUnsafePointer(to: element, body)
        }
        return nodes[Int(location.leaf)].elements.withUnsafeBufferPointer { body($0.baseAddress! + location.index) }
    }

    /// The location of the element with `id` if it is the one inserted
    /// last: typing inserts after it, and a loaded document lists an
    /// element's updates right after it. Needs no id index.
    func recentLocation(of id: OpId) -> Location? {
        guard let recent = validLastInserted, self.id(at: recent) == id else { return nil }
        return recent
    }

    /// ``lastInserted`` if it still names an element (later changes may
    /// have moved or removed it).
    private var validLastInserted: Location? {
        let recent = lastInserted
        guard recent.leaf >= 0, Int(recent.leaf) < nodes.count,
              recent.index < count(ofLeaf: recent.leaf) else { return nil }
        return recent
    }

    /// The location of the element with `id`.
    func location(of id: OpId) -> Location? {
        assert(indexed, "the element index is built after loading")
        if let recent = recentLocation(of: id) { return recent }
        guard let leaf = leaf(of: id) else { return nil }
        if nodes[Int(leaf)].isPacked { return packedIndex(of: id, in: leaf).map { Location(leaf: leaf, index: $0) } }
        return nodes[Int(leaf)].elements.withUnsafeBufferPointer { elements in
            elements.firstIndex { $0.id == id }.map { Location(leaf: leaf, index: $0) }
        }
    }

    /// The location right after `location`, or nil at the end.
    func successor(of location: Location) -> Location? {
        var leaf = location.leaf
        var index = location.index + 1
        while index >= count(ofLeaf: leaf) {
            leaf = nodes[Int(leaf)].next
            if leaf < 0 { return nil }
            index = 0
        }
        return Location(leaf: leaf, index: index)
    }

    /// The first element's location, or nil when empty.
    var startLocation: Location? {
        var leaf = firstLeaf
        while count(ofLeaf: leaf) == 0 {
            leaf = nodes[Int(leaf)].next
            if leaf < 0 { return nil }
        }
        return Location(leaf: leaf, index: 0)
    }

    /// The visible element covering unit `offset` (0-based), with the units
    /// before it. Zero-width elements are never returned.
    func element(coveringUnit offset: Int) -> (location: Location, start: Int)? {
        guard offset >= 0, offset < units else { return nil }
        if offset == units - 1, let last = lastVisibleIfLastInserted() { return (last, units - Int(units(at: last))) }
        // Each node is scanned from the nearer end: appends and edits near
        // the end of a long text then touch one or two elements per level
        // instead of a leaf's worth of large element structs.
        var remaining = offset
        var start = 0
        var node = root
        while !nodes[Int(node)].isLeaf {
            var next: Int32 = -1
            let children = nodes[Int(node)].children
            if remaining < nodes[Int(node)].units / 2 {
                for child in children {
                    let childUnits = nodes[Int(child)].units
                    if remaining < childUnits { next = child; break }
                    remaining -= childUnits
                    start += childUnits
                }
            } else {
                var end = nodes[Int(node)].units
                for child in children.reversed() {
                    let begin = end - nodes[Int(child)].units
                    if remaining >= begin && remaining < end { next = child; remaining -= begin; start += begin; break }
                    end = begin
                }
            }
            guard next >= 0 else { return nil }
            node = next
        }
        if nodes[Int(node)].isPacked {
            return packedElement(coveringUnit: remaining, in: node)
                .map { (Location(leaf: node, index: $0.index), start + $0.start) }
        }
        return nodes[Int(node)].elements.withUnsafeBufferPointer { elements in
            if remaining < nodes[Int(node)].units / 2 {
                var begin = 0
                for index in elements.indices {
                    let end = begin + Int(elements[index].units)
                    if remaining < end { return (Location(leaf: node, index: index), start + begin) }
                    begin = end
                }
                return nil
            }
            var end = nodes[Int(node)].units
            for index in elements.indices.reversed() {
                let begin = end - Int(elements[index].units)
                if remaining >= begin && remaining < end { return (Location(leaf: node, index: index), start + begin) }
                end = begin
            }
            return nil
        }
    }

    /// Where the last insert put its element, when that is the last visible
    /// element of the sequence (the element an append goes after): found
    /// without a walk from the root.
    private func lastVisibleIfLastInserted() -> Location? {
        guard let recent = validLastInserted, nodes[Int(recent.leaf)].isLeaf, nodes[Int(recent.leaf)].next < 0 else { return nil }
        if nodes[Int(recent.leaf)].isPacked {
            return packedLastVisibleIndex(in: recent.leaf) == recent.index ? recent : nil
        }
        // In place: binding the node to a local retained its arrays.
        return nodes[Int(recent.leaf)].elements.withUnsafeBufferPointer { elements in
            guard elements[recent.index].units > 0 else { return nil }
            for index in (recent.index + 1)..<elements.count where elements[index].units > 0 { return nil }
            return recent
        }
    }

    /// The visible width before the element at `location`.
    func unitsBefore(_ location: Location) -> Int {
        var total = nodes[Int(location.leaf)].isPacked
            ? packedUnits(before: location)
            : nodes[Int(location.leaf)].elements.withUnsafeBufferPointer { elements in
                elements[..<location.index].reduce(0) { $0 + Int($1.units) }
            }
        var child = location.leaf
        var parent = nodes[Int(child)].parent
        while parent >= 0 {
            for sibling in nodes[Int(parent)].children {
                if sibling == child { break }
                total += nodes[Int(sibling)].units
            }
            child = parent
            parent = nodes[Int(parent)].parent
        }
        return total
    }

    /// Calls `body` with every element in order until it returns false.
    func forEach(from start: Location? = nil, _ body: (SequenceElement) throws -> Bool) rethrows {
        guard var location = start ?? startLocation else { return }
        while true {
            let stopped = try withLeafElements(location.leaf) { elements in
                for index in location.index..<elements.count {
                    if try !body(elements[index]) { return true }
                }
                return false
            }
            if stopped { return }
            var leaf = nodes[Int(location.leaf)].next
            while leaf >= 0 && count(ofLeaf: leaf) == 0 { leaf = nodes[Int(leaf)].next }
            if leaf < 0 { return }
            location = Location(leaf: leaf, index: 0)
        }
    }

    /// Calls `body` with every element in document order, borrowing each in
    /// place (no copy of its ops), for whole-sequence scans such as saving.
    func forEachElement(_ body: (borrowing SequenceElement) -> Void) {
        forEachLeaf { elements in
            for index in elements.indices { body(elements[index]) }
        }
    }

    /// Calls `body` with the elements of each leaf in document order. Through
    /// the buffer a scan reads the fields it needs in place; element by
    /// element through the arrays' accessors, each element (its ops, their
    /// strings) was copied, retained and released.
    /// With `packed`, a packed leaf is handed to it instead, as it is;
    /// without, its elements are decoded into one buffer reused leaf after
    /// leaf (a fresh array a leaf made a save of a loaded document a third
    /// slower).
    func forEachLeaf(from start: Int32? = nil, until end: Int32? = nil, packed: ((PackedLeaf) -> Void)? = nil,
                     _ body: (UnsafeBufferPointer<SequenceElement>) -> Void) {
        var decoded: [SequenceElement] = []
        var leaf = start ?? firstLeaf
        while leaf >= 0 && leaf != end {
            if nodes[Int(leaf)].isPacked {
                if let packed {
                    packed(packedLeaf(leaf))
                } else {
                    packedLeaf(leaf).decode(into: &decoded, under: width)
                    decoded.withUnsafeBufferPointer(body)
                }
            } else {
                nodes[Int(leaf)].elements.withUnsafeBufferPointer(body)
            }
            leaf = nodes[Int(leaf)].next
        }
    }

    // MARK: Writing

    /// Applies `body` to the element at `location` and updates the widths.
    mutating func modify(at location: Location, _ body: (inout SequenceElement) -> Void) {
        unpack(location.leaf)
        let leaf = Int(location.leaf)
        let before = nodes[leaf].elements[location.index].units
        body(&nodes[leaf].elements[location.index])
        let after = nodes[leaf].elements[location.index].units(under: width)
        nodes[leaf].elements[location.index].units = after
        if after != before && !unitsDeferred { addUnits(Int(after - before), from: location.leaf) }
    }

    /// Inserts `element`, whose insert op went after `reference` (HEAD is
    /// ``OpId/root``), at `location` (an index may equal the leaf's count).
    /// `units`: its width, if the caller has it already (a splice does;
    /// working it out again is a measurable part of a keystroke).
    mutating func insert(_ element: consuming SequenceElement, after reference: OpId, at location: Location, units: Int32? = nil,
                         actors: ActorTable) {
        let id = element.id
        assert(!unitsDeferred, "an insert during a bulk load, which appends")
        place(element, after: reference, at: location, units: units)
        lowerMinimumId(from: location.leaf, to: id, actors: actors)
        let leaf = Int(location.leaf)
        if nodes[leaf].elements.count > Self.maxLeafElements {
            // Appending at the very end (typing at the end, a list growing)
            // moves only the new element to a fresh leaf, as a B-tree bulk
            // append does: leaves stay full and no element is copied.
            splitLeaf(location.leaf, keeping: nodes[leaf].next < 0 && location.index == Self.maxLeafElements
                      ? Self.maxLeafElements : nodes[leaf].elements.count / 2, actors: actors)
            if location.index >= nodes[leaf].elements.count {
                lastInserted = Location(leaf: nodes[leaf].next, index: location.index - nodes[leaf].elements.count)
            }
        }
    }

    /// Puts `element` at `location` and records it (index, counts, widths),
    /// leaving the leaf's size and the nodes' minimum ids to the caller.
    private mutating func place(_ element: consuming SequenceElement, after reference: OpId, at location: Location, units: Int32?) {
        assert(element.reference == nil || element.reference == reference, "an element made with another key")
        if let units {
            assert(units == element.units(under: width), "an element given the wrong width")
            element.units = units
        } else {
            // Not `units ?? ...`: its closure made a copy of the element.
            element.units = element.units(under: width)
        }
        if element.reference == nil { updateSideTables { $0.wideReferences[element.id] = reference } }
        unpack(location.leaf)
        let leaf = Int(location.leaf)
        let (id, isMark, units) = (element.id, element.isMark, element.units)
        // Array.insert takes the general replaceSubrange path, slow for
        // one element: append, then move the tail up by one.
        nodes[leaf].elements.append(consume element)
        if location.index < nodes[leaf].elements.count - 1 {
            nodes[leaf].elements.withUnsafeMutableBufferPointer { elements in
                let base = elements.baseAddress!, last = elements.count - 1
                let inserted = (base + last).move()
                (base + location.index + 1).moveInitialize(from: base + location.index, count: last - location.index)
                (base + location.index).initialize(to: inserted)
            }
        }
        if indexed { leafOfElement[id] = location.leaf }
        elementCount += 1
        if isMark { markCount += 1 }
        if units != 0 && !unitsDeferred { addUnits(Int(units), from: location.leaf) }
        lastInserted = location
    }

    /// Appends an element at the very end (loading a document, whose rows
    /// are already in order). A full last leaf gets a new empty sibling
    /// rather than a split, so loaded leaves are full and no element moves.
    mutating func append(_ element: consuming SequenceElement, after reference: OpId) {
        var node = root
        if let last = validLastInserted, nodes[Int(last.leaf)].isLeaf, nodes[Int(last.leaf)].next < 0 {
            node = last.leaf  // the last leaf, without a walk from the root
        } else {
            while !nodes[Int(node)].isLeaf { node = nodes[Int(node)].children[nodes[Int(node)].children.count - 1] }
        }
        if count(ofLeaf: node) >= Self.maxLeafElements {
            pack(node)
            var fresh = Node(isLeaf: true)
            fresh.elements.reserveCapacity(Self.maxLeafElements)
            fresh.next = nodes[Int(node)].next
            let freshIndex = Int32(nodes.count)
            nodes[Int(node)].next = freshIndex
            nodes.append(fresh)
            attachSibling(freshIndex, after: node, actors: nil)
            node = freshIndex
        }
        place(element, after: reference, at: Location(leaf: node, index: count(ofLeaf: node)), units: nil)
    }

    /// Packs the last leaf, once a load has appended the sequence's last
    /// element: its element buffer is then freed while the load goes on
    /// rather than at its end, where the buffers of thousands of short
    /// texts left holes among everything made since (twice the live heap).
    mutating func packLastLeaf() {
        var node = root
        while !nodes[Int(node)].isLeaf { node = nodes[Int(node)].children[nodes[Int(node)].children.count - 1] }
        pack(node)
        trimPackedArena()
    }

    /// The packed `leaf`, read from the arena.
    @inline(__always)
    func packedLeaf(_ leaf: Int32) -> PackedLeaf {
        assert(nodes[Int(leaf)].isPacked, "leaf \(leaf) is not packed")
        return PackedLeaf(bytes: sideTables.unsafelyUnwrapped.packedArena.bytes(at: nodes[Int(leaf)].packedPlace))
    }

    /// Packs `leaf` into the arena if every element in it is plain (see ``PackedLeaf``).
    private mutating func pack(_ leaf: Int32) {
        guard !nodes[Int(leaf)].isPacked else { return }
        let elements = nodes[Int(leaf)].elements
        var place: PackedArena.Place?
        updateSideTables { tables in place = elements.withUnsafeBufferPointer { tables.packedArena.pack($0) } }
        guard let place else { return }
        nodes[Int(leaf)].elements = []
        nodes[Int(leaf)].packedPlace = place
        nodes[Int(leaf)].isPacked = true
    }

    /// Gives the arena back the room a load left in its last block.
    private mutating func trimPackedArena() {
        guard sideTables != nil else { return }
        updateSideTables { $0.packedArena.trimLastBlock() }
    }

    /// Turns a packed `leaf` back into elements, for a write.
    private mutating func unpack(_ leaf: Int32) {
        guard nodes[Int(leaf)].isPacked else { return }
        let elements = packedLeaf(leaf).elements(under: width, capacity: Self.maxLeafElements + 1)
        let place = nodes[Int(leaf)].packedPlace
        nodes[Int(leaf)].packedPlace = .none
        nodes[Int(leaf)].isPacked = false
        if indexed {
            // The run index may still name this leaf: the element index, read first, now answers for its ids.
            for index in elements.indices { leafOfElement[elements[index].id] = leaf }
        }
        nodes[Int(leaf)].elements = elements
        var compact = false
        updateSideTables { tables in
            tables.packedArena.release(place)
            compact = tables.packedArena.needsCompaction
        }
        if compact { compactPackedArena() }
    }

    /// Copies the bytes of the leaves still packed to a new arena (an
    /// empty one when none is): edits unpack leaves one by one, and the
    /// bytes they leave behind are dead weight.
    private mutating func compactPackedArena() {
        let old = packedArena
        var fresh = PackedArena()
        for index in nodes.indices where nodes[index].isPacked {
            nodes[index].packedPlace = fresh.copy(old.bytes(at: nodes[index].packedPlace))
        }
        fresh.trimLastBlock()
        updateSideTables { $0.packedArena = fresh }
    }

    /// The location just after the element `id`, or the very start for HEAD.
    func locationAfter(_ id: OpId) -> Location? {
        if id.isRoot { return Location(leaf: firstLeaf, index: 0) }
        guard let location = location(of: id) else { return nil }
        return Location(leaf: location.leaf, index: location.index + 1)
    }

    private mutating func addUnits(_ delta: Int, from leaf: Int32) {
        var node = leaf
        while node >= 0 {
            nodes[Int(node)].units += delta
            node = nodes[Int(node)].parent
        }
    }

    /// Moves the elements after the first `kept` of `leaf` to a new leaf right after it.
    private mutating func splitLeaf(_ leaf: Int32, keeping kept: Int, actors: ActorTable) {
        let left = Int(leaf)
        var right = Node(isLeaf: true)
        right.elements.reserveCapacity(Self.maxLeafElements + 1)
        right.elements.append(contentsOf: nodes[left].elements[kept...])
        nodes[left].elements.removeSubrange(kept...)
        right.units = right.elements.reduce(0) { $0 + Int($1.units) }
        nodes[left].units -= right.units
        right.minimumId = Self.minimumId(of: right.elements, actors: actors)
        // The left half keeps the leaf's minimum unless the right took it
        // (typing at the end moves one element, never the least).
        if right.minimumId == nodes[left].minimumId {
            nodes[left].minimumId = Self.minimumId(of: nodes[left].elements, actors: actors)
        }
        right.next = nodes[left].next
        let rightIndex = Int32(nodes.count)
        nodes[left].next = rightIndex
        if indexed {
            // By index: iterating the elements copied each one (retains and releases).
            right.elements.withUnsafeBufferPointer { elements in
                for index in elements.indices { leafOfElement[elements[index].id] = rightIndex }
            }
        }
        nodes.append(right)
        attachSibling(rightIndex, after: leaf, actors: actors)
    }

    /// The least id of `elements`, ``OpId/unset`` for none.
    private static func minimumId(of elements: [SequenceElement], actors: ActorTable) -> OpId {
        elements.withUnsafeBufferPointer { elements in
            elements.indices.reduce(OpId.unset) { least, index in actors.least(least, elements[index].id) }
        }
    }

    /// Puts `sibling` right after `node` in `node`'s parent, growing the tree
    /// at the root when `node` has no parent.
    /// `actors`: nil while loading, when ``endBulkLoad(actors:)`` sets the
    /// inner nodes' minimum ids.
    private mutating func attachSibling(_ sibling: Int32, after node: Int32, actors: ActorTable?) {
        let parent = nodes[Int(node)].parent
        if parent < 0 {
            var newRoot = Node(isLeaf: false)
            newRoot.children = [node, sibling]
            newRoot.units = nodes[Int(node)].units + nodes[Int(sibling)].units
            if let actors { newRoot.minimumId = actors.least(nodes[Int(node)].minimumId, nodes[Int(sibling)].minimumId) }
            let rootIndex = Int32(nodes.count)
            nodes.append(newRoot)
            nodes[Int(node)].parent = rootIndex
            nodes[Int(sibling)].parent = rootIndex
            root = rootIndex
            return
        }
        nodes[Int(sibling)].parent = parent
        let position = nodes[Int(parent)].children.firstIndex(of: node)! + 1
        nodes[Int(parent)].children.insert(sibling, at: position)
        if nodes[Int(parent)].children.count > Self.maxChildren { splitInner(parent, actors: actors) }
    }

    private mutating func splitInner(_ node: Int32, actors: ActorTable?) {
        let left = Int(node)
        let half = nodes[left].children.count / 2
        var right = Node(isLeaf: false)
        right.children = Array(nodes[left].children[half...])
        nodes[left].children.removeSubrange(half...)
        let rightIndex = Int32(nodes.count)
        var moved = 0
        for child in right.children {
            nodes[Int(child)].parent = rightIndex
            moved += nodes[Int(child)].units
        }
        right.units = moved
        nodes[left].units -= moved
        if let actors {
            right.minimumId = minimumId(among: right.children, actors: actors)
            nodes[left].minimumId = minimumId(among: nodes[left].children, actors: actors)
        }
        nodes.append(right)
        attachSibling(rightIndex, after: node, actors: actors)
    }
}

#if DEBUG
/// Write access for the tests that break the tree's bookkeeping on purpose
/// to show that ``checkInvariants()`` reports it (debug builds only).
extension SequenceTree {
    var nodesForTesting: [Node] { get { nodes } set { nodes = newValue } }
    var rootForTesting: Int32 { get { root } set { root = newValue } }
    var elementCountForTesting: Int { get { elementCount } set { elementCount = newValue } }
    var markCountForTesting: Int { get { markCount } set { markCount = newValue } }
    var wideReferencesForTesting: [OpId: OpId] { get { wideReferences } set { updateSideTables { $0.wideReferences = newValue } } }
    var lastInsertedForTesting: Location { get { lastInserted } set { lastInserted = newValue } }
    mutating func setIndexedLeafForTesting(_ leaf: Int32, of id: OpId) { leafOfElement[id] = leaf }
}
#endif

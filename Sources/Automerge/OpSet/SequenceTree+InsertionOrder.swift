/// RGA's order among concurrent inserts: where a new element goes.
extension SequenceTree {
    /// Where RGA puts a new element `id` inserted after `reference` (HEAD is
    /// ``OpId/root``), or nil if there is no such element.
    ///
    /// Among inserts after one element the higher op id comes first, and
    /// an element inserted after one of those has a higher counter still,
    /// so every element after `reference` with an id above `id` is skipped:
    /// the new element goes before the first one with a lower id, or at the
    /// end. Most inserts stop at the next element; past the reference's
    /// leaf, whole subtrees whose least id is above `id` are skipped at
    /// once, so a run of concurrent inserts costs O(log n) each rather than
    /// the length of the run (thousands of actors inserting at one place).
    func insertionLocation(after reference: OpId, id: OpId, actors: ActorTable) -> Location? {
        var examined = 0
        return insertionLocation(after: reference, id: id, actors: actors, examined: &examined)
    }

    /// ``insertionLocation(after:id:actors:)``, counting in `examined` the
    /// elements and nodes whose ids it compares with `id` (its work).
    func insertionLocation(after reference: OpId, id: OpId, actors: ActorTable, examined: inout Int) -> Location? {
        guard let start = locationAfter(reference) else { return nil }
        if let index = firstIndex(inLeaf: start.leaf, from: start.index, below: id, actors: actors, examined: &examined) {
            return Location(leaf: start.leaf, index: index)
        }
        guard start.index < count(ofLeaf: start.leaf) || nextExisting(from: start) != nil else { return start }
        return firstLocation(after: start.leaf, below: id, actors: actors, examined: &examined) ?? endLocation
    }

    /// The first element of the leaves after `leaf` whose id precedes `id`.
    private func firstLocation(after leaf: Int32, below id: OpId, actors: ActorTable, examined: inout Int) -> Location? {
        var node = leaf
        while case let parent = nodes[Int(node)].parent, parent >= 0 {
            let siblings = nodes[Int(parent)].children
            guard let position = siblings.firstIndex(of: node) else { preconditionFailure("a node missing from its parent") }
            for sibling in siblings[(position + 1)...] {
                examined += 1
                if holdsId(below: id, in: sibling, actors: actors) {
                    return firstLocation(in: sibling, below: id, actors: actors, examined: &examined)
                }
            }
            node = parent
        }
        return nil
    }

    /// The first element under `node`, which holds one, whose id precedes `id`.
    private func firstLocation(in node: Int32, below id: OpId, actors: ActorTable, examined: inout Int) -> Location {
        var node = node
        descent: while !nodes[Int(node)].isLeaf {
            for child in nodes[Int(node)].children {
                examined += 1
                if holdsId(below: id, in: child, actors: actors) {
                    node = child
                    continue descent
                }
            }
            preconditionFailure("a node's minimum id is not under any of its children")
        }
        guard let index = firstIndex(inLeaf: node, from: 0, below: id, actors: actors, examined: &examined) else {
            preconditionFailure("a leaf's minimum id is not among its elements")
        }
        return Location(leaf: node, index: index)
    }

    /// The index of the first element of `leaf`, from `start` on, whose id precedes `id`.
    private func firstIndex(inLeaf leaf: Int32, from start: Int, below id: OpId, actors: ActorTable,
                            examined: inout Int) -> Int?
    {
        for index in start..<max(start, count(ofLeaf: leaf)) {
            examined += 1
            if actors.precedes(self.id(at: Location(leaf: leaf, index: index)), id) { return index }
        }
        return nil
    }

    /// Whether some element under `node` has an id that precedes `id`.
    @inline(__always)
    private func holdsId(below id: OpId, in node: Int32, actors: ActorTable) -> Bool {
        let minimum = nodes[Int(node)].minimumId
        return !minimum.isUnset && actors.precedes(minimum, id)
    }

    /// The location just past the last element.
    private var endLocation: Location {
        var node = root
        while !nodes[Int(node)].isLeaf { node = nodes[Int(node)].children[nodes[Int(node)].children.count - 1] }
        return Location(leaf: node, index: count(ofLeaf: node))
    }
}

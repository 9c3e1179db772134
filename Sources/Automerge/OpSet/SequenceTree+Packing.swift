/// Reads that see packed leaves (``PackedLeaf``) and element leaves alike.
extension SequenceTree {
    /// The number of elements in `leaf`.
    @inline(__always)
    func count(ofLeaf leaf: Int32) -> Int {
        if nodes[Int(leaf)].isPacked { return nodes[Int(leaf)].packed!.count }
        return nodes[Int(leaf)].elements.count
    }

    /// Calls `body` with the elements of `leaf` in place, a packed leaf's
    /// decoded into a temporary buffer.
    @inline(__always)
    func withLeafElements<R>(_ leaf: Int32, _ body: (UnsafeBufferPointer<SequenceElement>) throws -> R) rethrows -> R {
        if nodes[Int(leaf)].isPacked { return try nodes[Int(leaf)].packed!.withElements(under: width, body) }
        return try nodes[Int(leaf)].elements.withUnsafeBufferPointer(body)
    }

    /// Calls `body` with each element's leaf and id in document order,
    /// reading packed leaves' ids without decoding their elements.
    func forEachId(_ body: (Int32, OpId) -> Void) {
        var leaf = firstLeaf
        while leaf >= 0 {
            let current = leaf
            if nodes[Int(leaf)].isPacked {
                nodes[Int(leaf)].packed!.forEachId { _, id in body(current, id) }
            } else {
                nodes[Int(leaf)].elements.withUnsafeBufferPointer { elements in
                    for index in elements.indices { body(current, elements[index].id) }
                }
            }
            leaf = nodes[Int(leaf)].next
        }
    }

    /// The index in the packed `leaf` of the visible element covering unit
    /// `offset` of the leaf, and the units before it, read from the bytes:
    /// a read by index decodes one element, not the leaf.
    func packedElement(inLeaf leaf: Int32, coveringUnit offset: Int) -> (index: Int, start: Int)? {
        var result: (index: Int, start: Int)?
        var index = 0, start = 0
        nodes[Int(leaf)].packed!.forEachEntry { entry, bytes in
            let units = Int(PackedLeaf.units(of: entry, in: bytes, under: width))
            if offset < start + units { result = (index, start); return false }
            start += units
            index += 1
            return true
        }
        return result
    }

    /// How many leaves are packed, the elements they hold, and the heap
    /// bytes of their packed forms.
    var packedStatistics: (leaves: Int, elements: Int, bytes: Int) {
        var leaves = 0, elements = 0, bytes = 0
        for node in nodes where node.isPacked {
            leaves += 1
            elements += node.packed!.count
            bytes += node.packed!.byteCount
        }
        return (leaves, elements, bytes)
    }
}

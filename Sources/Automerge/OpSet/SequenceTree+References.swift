extension SequenceTree {
    /// Calls `body` with each element in document order, read in place, and
    /// the element its insert op went after (``OpId/root`` for HEAD): the
    /// insert op's key, which encoders write.
    ///
    /// `from` and `until` cut the walk at leaves (see
    /// ``leaf(atElementOffset:)``): the elements from leaf `from` on (nil:
    /// the first), up to but not including leaf `until` (nil: the end).
    /// With `packed`, a packed leaf is handed to it as it is (its entries
    /// hold each insert's key) instead of decoded.
    func forEachInsert(from start: Int32? = nil, until end: Int32? = nil, packed: ((PackedLeaf) -> Void)? = nil,
                       _ body: (UnsafePointer<SequenceElement>, _ reference: OpId) -> Void) {
        forEachLeaf(from: start, until: end, packed: packed) { elements in
            guard let first = elements.baseAddress else { return }
            for element in first..<first + elements.count {
                if let reference = element.pointee.reference {
                    body(element, reference)
                } else if let reference = wideReferences[element.pointee.id] {
                    body(element, reference)
                } else {
                    preconditionFailure("element \(element.pointee.id) has no key")
                }
            }
        }
    }

    /// The leaf holding the element at `offset` in document order
    /// (deleted elements included), or -1 past the end: where to cut a
    /// walk over the elements in two.
    func leaf(atElementOffset offset: Int) -> Int32 {
        var leaf = firstLeaf
        var before = 0
        while leaf >= 0 {
            let count = count(ofLeaf: leaf)
            if offset < before + count { return leaf }
            before += count
            leaf = nodes[Int(leaf)].next
        }
        return -1
    }
}

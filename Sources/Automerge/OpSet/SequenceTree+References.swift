extension SequenceTree {
    /// The id of the element at `location` if it follows the element before
    /// it (``SequenceElement/followsPrevious``), else nil. Read in place: a
    /// copy of the element retained and released its value and ops.
    @inline(__always)  // called from insert: out of line, each call copied the tree struct
    func idIfFollowsPrevious(at location: Location) -> OpId? {
        withElement(at: location) { $0.pointee.followsPrevious ? $0.pointee.id : nil }
    }

    /// Calls `body` with each element in document order, read in place, and
    /// the element its insert op went after (``OpId/root`` for HEAD): the
    /// insert op's key, which encoders write.
    func forEachInsert(_ body: (UnsafePointer<SequenceElement>, _ reference: OpId) -> Void) {
        var previous = OpId.root
        forEachLeaf { elements in
            guard let first = elements.baseAddress else { return }
            for element in first..<first + elements.count {
                let id = element.pointee.id
                if element.pointee.followsPrevious {
                    body(element, previous)
                } else {
                    guard let reference = explicitReferences[id] else {
                        preconditionFailure("element \(id) has neither a previous-element flag nor a stored reference")
                    }
                    body(element, reference)
                }
                previous = id
            }
        }
    }

    /// The id of the element right before `location` (deleted ones
    /// included), or ``OpId/root`` at the start.
    @inline(__always)  // called from insert: out of line, each call copied the tree struct
    func idBefore(_ location: Location) -> OpId {
        if location.index > 0 { return id(at: Location(leaf: location.leaf, index: location.index - 1)) }
        var leaf = nodes[Int(location.leaf)].previous
        while leaf >= 0 {
            let count = nodes[Int(leaf)].elements.count
            if count > 0 { return id(at: Location(leaf: leaf, index: count - 1)) }
            leaf = nodes[Int(leaf)].previous
        }
        return .root
    }

    /// `location` if an element is there, else the first element after it
    /// (in a later leaf), or nil at the end.
    @inline(__always)  // called from insert: out of line, each call copied the tree struct
    func existing(from location: Location) -> Location? {
        if location.index < nodes[Int(location.leaf)].elements.count { return location }
        var leaf = nodes[Int(location.leaf)].next
        while leaf >= 0 {
            if !nodes[Int(leaf)].elements.isEmpty { return Location(leaf: leaf, index: 0) }
            leaf = nodes[Int(leaf)].next
        }
        return nil
    }
}

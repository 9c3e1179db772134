extension SequenceTree {
    /// Calls `body` with each element in document order, read in place, and
    /// the element its insert op went after (``OpId/root`` for HEAD): the
    /// insert op's key, which encoders write.
    func forEachInsert(_ body: (UnsafePointer<SequenceElement>, _ reference: OpId) -> Void) {
        forEachLeaf { elements in
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
}

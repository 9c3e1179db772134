extension Array {
    /// Hands each element to `body` in order, moving it out of the array,
    /// which is left empty (with the elements not yet handed on if `body`
    /// throws): a copy of an element that holds arrays retains and releases
    /// each of them, where a move touches no reference count.
    mutating func drain<E: Error>(_ body: (consuming Element) throws(E) -> Void) throws(E) {
        // A buffer's swap moves its elements; an array's copies them.
        withUnsafeMutableBufferPointer { $0.reverse() }
        while let element = popLast() { try body(element) }
    }

    /// Appends the elements of `other` in order, moving them (see ``drain(_:)``).
    mutating func append(moving other: inout [Element]) {
        if isEmpty {
            swap(&self, &other)
            return
        }
        reserveCapacity(count + other.count)
        other.drain { append($0) }
    }
}

extension Array {
    /// Gives the array no more room than its elements take, where it has
    /// room to spare: a copy of exactly its elements (each retained once
    /// more) replaces it, and its old buffer is freed: for the last block
    /// or chunk of what a load keeps, reserved or grown by doubling.
    mutating func shrinkToFit() {
        guard capacity > count else { return }
        let kept = self
        self = Array(unsafeUninitializedCapacity: kept.count) { buffer, initialized in
            initialized = buffer.initialize(fromContentsOf: kept)
        }
    }
}

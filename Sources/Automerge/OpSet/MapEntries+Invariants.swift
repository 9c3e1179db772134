extension MapEntries: InvariantChecked {
    /// Verifies the invariants of the entries and of their key table (see
    /// ``Invariant``): one table entry per key (no table for a map of at
    /// most ``linearScanLimit`` keys), holding the key's own hash,
    /// a lookup of each key finding its own position (so no key is there
    /// twice), and each key's ops stored under it; packed keys are at most
    /// ``PackedMap/maxKeys``, with no table. Throws the first broken one.
    /// O(keys).
    func checkInvariants() throws(InvariantViolation) {
        do { try table.checkInvariants() } catch { throw error.within("map entries") }
        guard count == table.count || (table.count == 0 && count <= Self.linearScanLimit) else {
            throw broken(.keyCount, "\(count) keys\(isPacked ? " (packed)" : ""), \(table.count) table entries")
        }
        for position in 0..<count {
            let keyOps = self[opsAt: position]
            let key = keyOps.key
            for op in keyOps where op.key != .map(key) || op.insert || op.action == .delete {
                throw broken(.opStoredUnderItsKey, "op \(op.id.label) (\(op.action)) is stored under key \(key.string.debugDescription)")
            }
            let hash = Self.hash(key)
            guard table.count == 0 || table.hashes[position] == hash else {
                throw broken(.hashMatchesKey, "the table keeps another hash for key \(key.string.debugDescription) at position \(position)")
            }
            let found = find(key, hash: hash)
            guard found == position else {
                throw broken(.keyAtItsPosition,
                             "key \(key.string.debugDescription) is at position \(position), a lookup finds \(found.map(String.init) ?? "nothing")")
            }
        }
    }

    private func broken(_ invariant: Invariant, _ detail: String) -> InvariantViolation {
        InvariantViolation(invariant: invariant, structure: "map entries", detail: detail)
    }
}

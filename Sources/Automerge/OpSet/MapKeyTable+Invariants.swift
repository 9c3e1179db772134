extension MapKeyTable: InvariantChecked {
    /// Verifies the table's invariants (see ``Invariant``): its shape and
    /// load factor, one slot per key position, each slot's tag that of its
    /// key's hash, and each key reachable by its probe sequence. Throws
    /// the first broken one. O(slots); indexes nothing before checking its
    /// range, so a corrupted table is reported rather than trapping.
    func checkInvariants() throws(InvariantViolation) {
        guard tags.count == positions.count, tags.isEmpty || tags.count.nonzeroBitCount == 1 else {
            throw broken(.tableShape, "\(tags.count) tags, \(positions.count) positions")
        }
        // Probes stop at an empty slot: a full table would make a lookup of an absent key loop forever.
        guard count * 2 <= tags.count else { throw broken(.tableLoadFactor, "\(count) keys in \(tags.count) slots") }
        let mask = tags.count - 1
        var slotOfPosition = [Int](repeating: -1, count: count)
        var occupied = 0
        for slot in tags.indices where tags[slot] != 0 {
            occupied += 1
            let position = Int(positions[slot])
            guard position < count else { throw broken(.slotPerKey, "slot \(slot) holds position \(position) of \(count)") }
            guard slotOfPosition[position] == -1 else {
                throw broken(.slotPerKey, "position \(position) is in slots \(slotOfPosition[position]) and \(slot)")
            }
            slotOfPosition[position] = slot
            let hash = hashes[position]
            guard tags[slot] == Self.tag(hash) else {
                throw broken(.tagMatchesHash, "slot \(slot) has tag \(tags[slot]), the hash of position \(position) tags \(Self.tag(hash))")
            }
            var probe = Int(truncatingIfNeeded: hash) & mask
            while probe != slot {
                guard tags[probe] != 0 else {
                    throw broken(.keyFindable, "position \(position) is in slot \(slot), past empty slot \(probe) of its probe sequence")
                }
                probe = (probe + 1) & mask
            }
        }
        guard occupied == count else { throw broken(.slotPerKey, "\(occupied) slots in use for \(count) keys") }
    }

    private func broken(_ invariant: Invariant, _ detail: String) -> InvariantViolation {
        InvariantViolation(invariant: invariant, structure: "key table", detail: detail)
    }
}

import Testing
@_spi(Conformance) @testable import Automerge

/// The map key table's and map entries' invariant checks pass on maps that
/// puts built, and report each kind of damage by the invariant it breaks.
@Suite("Map invariants")
struct MapInvariantTests {
    /// A map of `count` keys, one put each.
    static func builtEntries(count: Int) -> MapEntries {
        var actors = ActorTable()
        _ = actors.intern(actorId(1))
        var entries = MapEntries()
        for counter in 1...count {
            let key = MapKey("key \(counter)")
            let op = Op(id: OpId(counter: UInt32(counter), actor: 0), action: .set, insert: false, key: .map(key), value: .int(1))
            _ = entries.add(op, to: key, hash: MapEntries.hash(key), actors: actors)
        }
        return entries
    }

    /// The invariant `check` reports broken, or nil when it passes.
    static func brokenInvariant(_ check: () throws(InvariantViolation) -> Void) -> Invariant? {
        do {
            try check()
            return nil
        } catch {
            return error.invariant
        }
    }

    @Test("maps built by puts pass their checks, empty or grown many times")
    func builtMapsPass() throws {
        for count in [0, 1, 4, 5, 8, 9, 1000] {
            let entries = count == 0 ? MapEntries() : Self.builtEntries(count: count)
            try entries.checkInvariants()
            try entries.table.checkInvariants()
        }
    }

    @Test("a map of up to eight keys finds them by comparing, the ninth builds the hash table of them all")
    func smallMapsScan() throws {
        for count in 1...12 {
            let entries = Self.builtEntries(count: count)
            #expect(entries.table.count == (count <= MapEntries.linearScanLimit ? 0 : count), "\(count) keys")
            for counter in 1...count {
                let key = MapKey("key \(counter)")
                #expect(entries.find(key, hash: MapEntries.hash(key)) == counter - 1)
            }
            let absent = MapKey("key \(count + 1)")
            #expect(entries.find(absent, hash: MapEntries.hash(absent)) == nil)
        }
    }

    @Test("an op stored under a key as a delete is reported")
    func deleteStoredUnderKey() {
        var entries = Self.builtEntries(count: 10)
        entries[opsAt: 3][0].action = .delete
        #expect(Self.brokenInvariant(entries.checkInvariants) == .opStoredUnderItsKey)
    }

    #if DEBUG
    /// Damage done through the test-only hooks, one per invariant.
    @Suite("Map invariants: damage")
    struct Damage {
        let entries = MapInvariantTests.builtEntries(count: 100)

        func brokenTable(_ damage: (inout MapKeyTable) -> Void) -> Invariant? {
            var table = entries.table
            damage(&table)
            return MapInvariantTests.brokenInvariant(table.checkInvariants)
        }

        func brokenEntries(_ damage: (inout MapEntries) -> Void) -> Invariant? {
            var copy = entries
            damage(&copy)
            return MapInvariantTests.brokenInvariant(copy.checkInvariants)
        }

        /// The slots in use.
        var occupied: [Int] { entries.table.tags.indices.filter { entries.table.tags[$0] != 0 } }

        @Test("tags and positions of different sizes, or not a power of two")
        func shape() {
            #expect(brokenTable { $0.positionsForTesting.removeLast() } == .tableShape)
            #expect(brokenTable { table in
                table.tagsForTesting.append(0)
                table.positionsForTesting.append(0)
            } == .tableShape)
        }

        @Test("a table more than half full")
        func loadFactor() {
            var small = MapKeyTable()
            for counter in 1...4 { _ = small.append(hash: MapEntries.hash(MapKey("key \(counter)"))) }
            #expect(small.tags.count == 8)
            small.hashesForTesting.append(MapEntries.hash(MapKey("fifth")))
            #expect(MapInvariantTests.brokenInvariant(small.checkInvariants) == .tableLoadFactor)
        }

        @Test("a position in two slots, out of range, or in none")
        func slots() {
            let (first, second) = (occupied[0], occupied[1])
            #expect(brokenTable { $0.positionsForTesting[second] = $0.positions[first] } == .slotPerKey)
            #expect(brokenTable { $0.positionsForTesting[first] = 100 } == .slotPerKey)
            #expect(brokenTable { table in
                // A slot that ends its run: no other key's probe sequence crosses it.
                let mask = table.tags.count - 1
                table.tagsForTesting[occupied.first { table.tags[($0 + 1) & mask] == 0 }!] = 0
            } == .slotPerKey)
        }

        @Test("a tag that is not its key's hash's")
        func tags() {
            #expect(brokenTable { $0.tagsForTesting[occupied[5]] ^= 1 } == .tagMatchesHash)
        }

        @Test("a key moved past an empty slot of its probe sequence")
        func probeSequence() {
            #expect(brokenTable { table in
                let mask = table.tags.count - 1
                let slot = occupied[7]
                var free = (slot + 1) & mask
                while table.tags[free] != 0 { free = (free + 1) & mask }
                table.tagsForTesting[free] = table.tags[slot]
                table.positionsForTesting[free] = table.positions[slot]
                table.tagsForTesting[slot] = 0
            } == .keyFindable)
        }

        @Test("a table with another number of keys than the entries")
        func keyCount() {
            #expect(brokenEntries { $0.tableForTesting = MapKeyTable() } == .keyCount)
        }

        @Test("a table that keeps another hash for a key")
        func hashes() {
            #expect(brokenEntries { entries in
                var table = MapKeyTable()
                for key in entries.keys { _ = table.append(hash: MapEntries.hash(key) ^ 1) }
                entries.tableForTesting = table
            } == .hashMatchesKey)
        }

        @Test("a key added twice")
        func duplicateKey() {
            #expect(brokenEntries { entries in
                let key = MapKey("key 1")
                entries.opsForTesting.append(KeyOps(key: key, put: OpId(counter: 500, actor: 0), value: .int(2)))
                var table = entries.table
                _ = table.append(hash: MapEntries.hash(key))
                entries.tableForTesting = table
            } == .keyAtItsPosition)
        }
    }
    #endif
}

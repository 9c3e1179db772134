import Testing
@testable import Automerge

/// The op id index behind element lookups and the object table: dense
/// per-actor arrays while counters are dense, a hash table otherwise. Both
/// must behave as one map.
@Suite("Op id index")
struct OpIdIndexTests {
    @Test func typedIdsAreFoundAndOthersAreNot() {
        var index = OpIdIndex()
        for counter in UInt32(1)...20_000 { index[OpId(counter: counter, actor: 0)] = Int32(counter % 97) }
        #expect(index.count == 20_000)
        for counter in UInt32(1)...20_000 { #expect(index[OpId(counter: counter, actor: 0)] == Int32(counter % 97)) }
        #expect(index[OpId(counter: 20_001, actor: 0)] == nil)
        #expect(index[OpId(counter: 5, actor: 1)] == nil)
        #expect(index[OpId(counter: UInt32.max, actor: 0)] == nil)
    }

    /// Hostile counters (spread over the whole 32-bit range, many actors)
    /// must not make the dense arrays huge, and must still be found.
    @Test(arguments: [UInt64(1), 2, 3, 42])
    func agreesWithADictionaryOnMixedAndHostileIds(seed: UInt64) {
        var random = StorageTestRandom(seed: seed)  // seeded, so a failure names a reproducible case
        var index = OpIdIndex()
        var model: [OpId: Int32] = [:]
        for step in 0..<30_000 {
            let id: OpId
            switch random.next() % 4 {
            case 0: id = OpId(counter: UInt32.random(in: 1...UInt32.max, using: &random), actor: UInt32.random(in: 0..<1_000, using: &random))
            case 1: id = OpId(counter: UInt32(step + 1), actor: 3)
            case 2: id = OpId(counter: UInt32.random(in: 1...200_000, using: &random), actor: UInt32.random(in: 0..<4, using: &random))
            default: id = model.keys.randomElement(using: &random) ?? OpId(counter: 1, actor: 0)
            }
            let value = Int32.random(in: 0...Int32.max, using: &random)
            index[id] = value
            model[id] = value
        }
        #expect(index.count == model.count, "seed \(seed)")
        #expect(index.denseCapacity <= 4 * (index.count + 1) + 65_536, "seed \(seed): dense arrays grew past their bound")
        for (id, value) in model where index[id] != value {
            Issue.record("seed \(seed): \(id) maps to \(String(describing: index[id])), expected \(value)")
            break
        }
        for _ in 0..<10_000 {
            let probe = OpId(counter: UInt32.random(in: 1...UInt32.max, using: &random), actor: UInt32.random(in: 0..<1_000, using: &random))
            #expect(index[probe] == model[probe], "seed \(seed)")
        }
    }

    /// An id first stored in the hash table (its counter far beyond the
    /// dense range) keeps one entry when the dense array later grows over it.
    @Test func anIdKeepsOneEntryWhenTheDenseRangeReachesIt() {
        var index = OpIdIndex()
        let far = OpId(counter: 100_000, actor: 0)
        index[far] = 1
        for counter in UInt32(1)...40_000 { index[OpId(counter: counter, actor: 0)] = 2 }
        let before = index.count
        index[far] = 3
        #expect(index.count == before)
        #expect(index[far] == 3)
        index[OpId(counter: 99_999, actor: 0)] = 4
        #expect(index.count == before + 1)
        #expect(index[far] == 3)
    }

    @Test func reservingForALoadedSequenceKeepsEveryEntry() {
        var index = OpIdIndex()
        index.reserve(entries: 1_000, maxCounters: [3_000, 0, 2_000])
        for counter in stride(from: UInt32(1), through: 3_000, by: 3) { index[OpId(counter: counter, actor: 0)] = Int32(counter) }
        for counter in stride(from: UInt32(2), through: 2_000, by: 2) { index[OpId(counter: counter, actor: 2)] = 0 }
        #expect(index[OpId(counter: 2_998, actor: 0)] == 2_998)
        #expect(index[OpId(counter: 2_999, actor: 0)] == nil)
        #expect(index[OpId(counter: 2_000, actor: 2)] == 0)
        #expect(index.count == 1_000 + 1_000)
        // A bound far beyond the entries is refused: the ids go to the hash table.
        var sparse = OpIdIndex()
        sparse.reserve(entries: 2, maxCounters: [UInt32.max])
        sparse[OpId(counter: UInt32.max, actor: 0)] = 7
        #expect(sparse[OpId(counter: UInt32.max, actor: 0)] == 7)
    }
}

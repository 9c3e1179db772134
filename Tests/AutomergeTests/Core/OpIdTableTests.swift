import AutomergeConformance
import Testing
@testable import Automerge

/// The op id table behind element lookups, the object table and the
/// rebuild of a loaded document's changes: dense per-actor runs while
/// counters are dense, a seeded hash table otherwise. Both must behave as
/// one map, and no choice of ids may make it slow or large.
@Suite("Op id table")
struct OpIdTableTests {
    func expectSound(_ table: OpIdTable, _ context: Comment? = nil) {
        #expect(table.invariantViolations() == [], context)
    }

    @Test func typedIdsAreFoundAndOthersAreNot() {
        var table = OpIdTable()
        for counter in UInt32(1)...20_000 { table[OpId(counter: counter, actor: 0)] = Int32(counter % 97) }
        #expect(table.count == 20_000)
        for counter in UInt32(1)...20_000 { #expect(table[OpId(counter: counter, actor: 0)] == Int32(counter % 97)) }
        #expect(table[OpId(counter: 20_001, actor: 0)] == nil)
        #expect(table[OpId(counter: 5, actor: 1)] == nil)
        #expect(table[OpId(counter: UInt32.max, actor: 0)] == nil)
        #expect(table.extraProbes == 0, "typing stays in the dense run")
        expectSound(table)
    }

    /// Random ids of every kind (spread over the 32-bit range, many actors,
    /// dense runs, repeats, counter 0 and 2^32-1) against a dictionary.
    @Test(arguments: [UInt64(1), 2, 3, 42])
    func agreesWithADictionary(seed: UInt64) {
        var random = StorageTestRandom(seed: seed)  // seeded, so a failure names a reproducible case
        var table = OpIdTable()
        var model: [OpId: Int32] = [:]
        for step in 0..<30_000 {
            let id: OpId
            switch random.next() % 5 {
            case 0: id = OpId(counter: UInt32.random(in: 0...UInt32.max, using: &random), actor: UInt32.random(in: 0..<1_000, using: &random))
            case 1: id = OpId(counter: UInt32(step + 1), actor: 3)
            case 2: id = OpId(counter: UInt32.random(in: 0...200_000, using: &random), actor: UInt32.random(in: 0..<4, using: &random))
            case 3: id = OpId(counter: [0, 1, UInt32.max - 1, UInt32.max].randomElement(using: &random)!, actor: UInt32(random.next() % 3))
            default: id = model.keys.randomElement(using: &random) ?? OpId(counter: 1, actor: 0)
            }
            let value = Int32.random(in: 0...Int32.max, using: &random)
            let fresh = model[id] == nil
            if random.next() % 2 == 0 {
                #expect(table.insertIfAbsent(id, value) == fresh, "seed \(seed)")
                if fresh { model[id] = value }
            } else {
                table[id] = value
                model[id] = value
            }
        }
        #expect(table.count == model.count, "seed \(seed)")
        expectSound(table, "seed \(seed)")
        for (id, value) in model where table[id] != value {
            Issue.record("seed \(seed): \(id) maps to \(String(describing: table[id])), expected \(value)")
            break
        }
        for _ in 0..<10_000 {
            let probe = OpId(counter: UInt32.random(in: 1...UInt32.max, using: &random), actor: UInt32.random(in: 0..<1_000, using: &random))
            #expect(table[probe] == model[probe], "seed \(seed)")
        }
    }

    /// An id first stored in the hash table (far beyond the dense run)
    /// keeps one entry when the run later grows over it.
    @Test func anIdKeepsOneEntryWhenTheRunReachesIt() {
        var table = OpIdTable()
        let far = OpId(counter: 100_000, actor: 0)
        table[far] = 1
        for counter in UInt32(1)...40_000 { table[OpId(counter: counter, actor: 0)] = 2 }
        let before = table.count
        table[far] = 3
        #expect(table.count == before)
        #expect(table[far] == 3)
        table[OpId(counter: 99_999, actor: 0)] = 4
        #expect(table.count == before + 1)
        #expect(table[far] == 3)
        expectSound(table)
    }

    @Test func reservingForALoadedSequenceKeepsEveryEntry() {
        var ranges = OpIdRanges()
        let ids = stride(from: UInt32(1_000_001), through: 1_003_000, by: 3).map { OpId(counter: $0, actor: 0) }
            + stride(from: UInt32(2), through: 2_000, by: 2).map { OpId(counter: $0, actor: 2) }
        for id in ids { ranges.note(id) }
        var table = OpIdTable()
        table.reserve(ranges, entries: ids.count)
        #expect(table.denseSlots <= 4 * ids.count + 16)
        for (position, id) in ids.enumerated() { table[id] = Int32(position) }
        #expect(table.extraProbes == 0, "both actors' ranges are dense: no id is hashed")
        #expect(table[OpId(counter: 1_002_998, actor: 0)] == 999)
        #expect(table[OpId(counter: 1_002_999, actor: 0)] == nil)
        #expect(table[OpId(counter: 2_000, actor: 2)] == 1_999)
        #expect(table.count == ids.count)
        expectSound(table)
    }

    /// The dense runs never take more than 4 slots per entry plus one
    /// allowance, whatever the ids: counters spread to 2^32, actor indices
    /// in the millions, a run growing downwards.
    @Test func runsStayWithinTheirBudgetForAnyIds() {
        var spread = OpIdTable(), manyActors = OpIdTable(), downwards = OpIdTable()
        for step in UInt32(0)..<5_000 {
            spread[OpId(counter: step &* 858_993, actor: 0)] = 1
            manyActors[OpId(counter: 1, actor: 1_000_000 + step * 977)] = 1
            downwards[OpId(counter: 1_000_000 - step, actor: 1)] = Int32(step)
        }
        for table in [spread, manyActors, downwards] {
            #expect(table.count == 5_000)
            #expect(table.denseSlots <= 4 * table.count + 16)
            expectSound(table)
        }
        #expect(downwards[OpId(counter: 1_000_000 - 4_999, actor: 1)] == 4_999)
        var empty = OpIdTable()
        empty[OpId(counter: 70_000, actor: 0)] = 0  // a single id far from 0 allocates no run up to it
        #expect(empty.denseSlots <= 20)
    }

    /// Hash probes grow linearly with the entries, for ids crafted to share
    /// one probe cluster of an unseeded multiplicative hash, for ids that
    /// differ only in their high bits, and for random ids.
    @Test(arguments: ["clustered", "high bits", "random"])
    func hashProbesGrowLinearly(_ kind: String) {
        var perEntry: [Double] = []
        for exponent in [10, 12, 14] {
            let count = 1 << exponent
            var random = StorageTestRandom(seed: UInt64(exponent))
            let counters: [UInt32] = switch kind {
            case "clustered": HostileInputs.clusteredCounters(count)
            case "high bits": (1...count).map { UInt32($0) << 17 }
            default: (0..<count).map { _ in UInt32.random(in: 1...UInt32.max, using: &random) }
            }
            var table = OpIdTable()
            for (position, counter) in counters.enumerated() { table[OpId(counter: counter, actor: 7)] = Int32(position) }
            #expect(table.count == Set(counters).count)
            expectSound(table, "\(kind), 2^\(exponent)")
            perEntry.append(Double(table.extraProbes) / Double(count))
        }
        // Linear probing at most half full: about one extra probe per entry
        // on average, rehashes included; a cluster would give ~n/2.
        #expect(perEntry.allSatisfy { $0 < 4 }, "\(kind): extra probes per entry \(perEntry)")
    }

    /// A sequence tree holds a table; past 128 bytes a tree read through a
    /// pointer to its object is copied (memcpy and retains) per keystroke.
    @Test func staysSmallEnoughForTheTreeToStayInRegisters() {
        #expect(MemoryLayout<OpIdTable>.size <= 48)
        #expect(MemoryLayout<SequenceTree>.size <= 128)
    }

    /// Each broken fact is reported: the check is not a test that cannot fail.
    @Test func invariantViolationsAreReported() {
        var table = OpIdTable()
        for counter in UInt32(1)...100 { table[OpId(counter: counter, actor: 0)] = 0 }
        for counter in UInt32(1)...100 { table[OpId(counter: counter << 20, actor: 5)] = 0 }
        expectSound(table)
        var broken = table
        broken.corruptCountForTesting()
        #expect(broken.invariantViolations().contains { $0.contains("count") })
    }
}

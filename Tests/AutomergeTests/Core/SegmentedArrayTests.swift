import Testing
@testable import Automerge

/// ``SegmentedArray`` is an array whose inserts shift at most one segment:
/// what keeps a key's ops and an op's successors linear to build when a
/// peer chooses where each new op sorts.
@Suite("SegmentedArray: an array that inserts anywhere cheaply")
struct SegmentedArrayTests {
    /// Where each insert goes: a peer's choice of actor ids can make any of these.
    enum Pattern: String, CaseIterable {
        case front, back, middle, alternatingEnds, random
    }

    @Test("random inserts and writes match an array's; no insert shifts more than a segment",
          arguments: Pattern.allCases, [UInt64(1), 2, 3])
    func matchesAnArray(_ pattern: Pattern, seed: UInt64) {
        var random = StorageTestRandom(seed: seed)
        var list = SegmentedArray<Int>()
        var model: [Int] = []
        for step in 0..<3_000 {
            let position = switch pattern {
            case .front: 0
            case .back: model.count
            case .middle: model.count / 2
            case .alternatingEnds: step.isMultiple(of: 2) ? 0 : model.count
            case .random: Int(random.next() % UInt64(model.count + 1))
            }
            list.insert(step, at: position)
            model.insert(step, at: position)
            if step % 7 == 0 {
                let written = Int(random.next() % UInt64(model.count))
                list[written] += 1_000_000
                model[written] += 1_000_000
            }
        }
        #expect(list.count == model.count, "seed \(seed)")
        #expect(list.array == model, "seed \(seed): the elements differ")
        #expect(Array(list) == model, "seed \(seed): iterating differs from the elements")
        #expect(list.longestRun <= SegmentedArray<Int>.segmentCapacity, "seed \(seed): a segment of \(list.longestRun)")
    }

    @Test("a copy is a value: writing one leaves the other as it was")
    func copyOnWrite() {
        var list = SegmentedArray(Array(0..<2_000))
        let copy = list
        list.insert(-1, at: 0)
        list[1_000] = 7
        #expect(copy.array == Array(0..<2_000))
        #expect(list.count == 2_001 && list[0] == -1 && list[1_000] == 7)
        #expect(copy != list && copy == SegmentedArray(Array(0..<2_000)))
    }

    @Test("short lists stay one array")
    func shortListsAreFlat() {
        var list = SegmentedArray<Int>()
        for value in 0..<(SegmentedArray<Int>.segmentedFrom - 1) { list.insert(value, at: 0) }
        #expect(list.longestRun == list.count)
    }
}

import PropertyBased
import Testing
import AutomergeTestSupport
@_spi(Conformance) @testable import Automerge

// A large save encodes the two halves of its rows on two cores and joins
// each column (RLEEncoder/DeltaEncoder/BooleanEncoder `append(contentsOf:)`).
// A join must give exactly the bytes of one encoder fed every value in
// turn, wherever the cut falls: inside a run, between a literal and a run
// it could extend, after nulls, with a delta to rebase.

@Suite("Column joins", .ownThread)
struct ColumnJoinTests {
    /// Values from a small alphabet (so that runs, literals and nulls all
    /// occur), -1 standing for null, and where to cut them.
    static let cutValues = zip(Gen.int(in: -1...3).array(of: 0...60), Gen.int(in: 0...60))

    static func split<T>(_ values: [T], at cut: Int) -> ([T], [T]) {
        let cut = min(cut, values.count)
        return (Array(values[..<cut]), Array(values[cut...]))
    }

    /// The bytes of an RLE column whose values before `cut` went to one
    /// encoder and the rest to another, joined.
    static func joinedRLE<V: RLEValue>(_ values: [V?], at cut: Int) -> [UInt8] {
        let (head, tail) = split(values, at: cut)
        var joined = RLEEncoder<V>(), second = RLEEncoder<V>()
        for value in head { joined.append(value) }
        for value in tail { second.append(value) }
        joined.append(contentsOf: second)
        return joined.finish()
    }

    @Test("an RLE column joined at any cut is the column of all its values")
    func rleJoins() async {
        await propertyCheck(count: 2000, input: Self.cutValues) { raw, cut in
            let values = raw.map { $0 < 0 ? nil : UInt64($0) }
            #expect(Self.joinedRLE(values, at: cut) == RLEColumn.encode(values), "\(values) cut at \(cut)")
        }
    }

    @Test("a string RLE column (map keys, mark names) joins the same way")
    func stringJoins() async {
        await propertyCheck(count: 1000, input: Self.cutValues) { raw, cut in
            let values = raw.map { $0 < 0 ? nil : ["a", "b", "ü", "key"][$0] }
            #expect(Self.joinedRLE(values, at: cut) == RLEColumn.encode(values), "\(values) cut at \(cut)")
        }
    }

    @Test("a delta column joined at any cut rebases the second half's first value")
    func deltaJoins() async {
        // Counters that mostly step by one (runs of delta 1) with jumps back
        // and forth, as op ids and element keys do.
        await propertyCheck(count: 2000, input: Self.cutValues) { raw, cut in
            var counter: Int64 = 5
            let values: [Int64?] = raw.map { step in
                if step < 0 { return nil }
                counter += [1, 1, -3, 7][step]
                return counter
            }
            let (head, tail) = Self.split(values, at: cut)
            var joined = DeltaEncoder(), second = DeltaEncoder()
            for value in head { joined.append(value) }
            for value in tail { second.append(value) }
            joined.append(contentsOf: second)
            #expect(joined.finish() == DeltaColumn.encode(values), "\(values) cut at \(cut)")
        }
    }

    @Test("a boolean column joined at any cut is the column of all its values, the expand column's omission included")
    func booleanJoins() async {
        await propertyCheck(count: 1000, input: Self.cutValues) { raw, cut in
            let values = raw.map { $0 >= 2 }
            let (head, tail) = Self.split(values, at: cut)
            for omit in [false, true] {
                var joined = BooleanEncoder(), second = BooleanEncoder()
                for value in head { joined.append(value) }
                for value in tail { second.append(value) }
                joined.append(contentsOf: second)
                #expect(joined.finish(omitIfAllFalse: omit) == BooleanColumn.encode(values, omitIfAllFalse: omit),
                        "\(values) cut at \(cut)")
            }
        }
    }

    @Test("long runs and literals on both sides of the cut join without being replayed value by value")
    func longRuns() {
        let values: [UInt64?] = Array(repeating: 7, count: 5000) + (0..<3000).map { UInt64($0 % 2) } + Array(repeating: nil, count: 4000)
        for cut in [0, 1, 4999, 5000, 5001, 6500, 8000, 9000, 12000] {
            #expect(Self.joinedRLE(values, at: cut) == RLEColumn.encode(values), "cut at \(cut)")
        }
    }
}

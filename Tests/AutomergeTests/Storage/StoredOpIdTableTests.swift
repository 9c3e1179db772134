import Testing
@testable import Automerge

@Suite("The op id table used to rebuild changes")
struct StoredOpIdTableTests {
    static func id(_ counter: UInt64, _ actor: Int) -> StoredOpId { StoredOpId(counter: counter, actor: actor) }

    /// The same ids must behave alike whether the table hashes them or keeps
    /// them in dense per-actor arrays (with ids outside the arrays hashed).
    @Test("finds what was inserted, refuses duplicates, grows", arguments: [[], [3000, 10, 0]] as [[UInt64]])
    func insertAndFind(_ bounds: [UInt64]) {
        var table = StoredOpIdTable(minimumCapacity: 4, counterBounds: bounds)
        var expected: [StoredOpId: Int] = [:]
        for row in 0..<5000 {
            // Spread over 3 actors, with counters inside and beyond the bounds, and counter 0.
            let id = Self.id(UInt64((row * 7919) % 6000), row % 3)
            let fresh = expected[id] == nil
            #expect(table.insert(id, row: row) == fresh)
            if fresh { expected[id] = row }
        }
        #expect(table.count == expected.count)
        for (id, row) in expected { #expect(table[id] == row) }
        #expect(table[Self.id(1, 7)] == nil)
        #expect(table[Self.id(UInt64(UInt32.max), 0)] == nil)
        #expect(table[Self.id(9999, 1)] == nil)
    }
}

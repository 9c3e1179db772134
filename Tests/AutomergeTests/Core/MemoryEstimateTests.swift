import Foundation
import Testing
@_spi(Storage) @testable import Automerge

/// `approximateMemoryFootprint` is what a cache of documents (the datastore's,
/// the sync server's) bounds its memory by, so it must grow with everything
/// a document keeps in proportion to its history, not only with its ops.
@Suite("Memory estimate")
struct MemoryEstimateTests {
    static let count = 2_048

    /// `count` changes of one put each, by one actor in a line.
    static func oneActor() throws -> Document {
        let doc = Document()
        doc.actor = ActorId(hexString: "aa")!
        for index in 0..<count {
            try doc.put(obj: .ROOT, key: "k\(index)", value: .Int(Int64(index)))
            doc.commitWith()
        }
        return doc
    }

    /// The same puts, each by an actor of its own, none seeing another: as many heads as changes.
    static func concurrentActors() throws -> Document {
        let merged = Document()
        for index in 0..<count {
            let peer = Document()
            try peer.put(obj: .ROOT, key: "k\(index)", value: .Int(Int64(index)))
            try merged.merge(other: peer)
        }
        return merged
    }

    /// Measured (automerge-memory-probe --breakdown, a file of 32,768
    /// one-change actors): about 450 bytes of heap in use per actor beyond
    /// the changes' bytes and ops, where the estimate once counted none.
    @Test("a history of many one-change actors is estimated at more than its changes' bytes and ops")
    func actorsAndHeadsCount() throws {
        let concurrent = try Self.concurrentActors()
        #expect(concurrent.heads().count == Self.count)
        let changeBytes = concurrent.getHistory().reduce(0) { total, hash in total + (concurrent.change(hash: hash)?.bytes.count ?? 0) }
        let floor = changeBytes + Self.count * 48 + Self.count * 150
        #expect(concurrent.approximateMemoryFootprint >= floor, "estimate \(concurrent.approximateMemoryFootprint), floor \(floor)")
    }

    @Test("ops are counted by number, not by the highest counter: concurrent changes share their counters")
    func opsCountedByNumber() throws {
        let line = try Self.oneActor(), concurrent = try Self.concurrentActors()
        // The same ops and changes; the line's history also keeps each change's dependency.
        #expect(concurrent.approximateMemoryFootprint >= line.approximateMemoryFootprint)
    }
}

import Foundation
import Testing
@_spi(Conformance) @testable import Automerge
import AutomergeConformance

/// Documents built through the API survive save and load unchanged, and
/// their changes re-encode to the bytes and hashes they were made with.
@Suite("Save/load round trips of random documents")
struct RoundTripTests {
    @Test("Document(d.save()) has the same dump, heads and history", arguments: 0..<24)
    func saveLoadRoundTrip(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let doc = Document()
        doc.actor = ActorId(data: Data([UInt8(seed), 1]))!
        let peer = doc.fork()
        peer.actor = ActorId(data: Data([UInt8(seed), 2]))!
        try RandomEdits.apply(40, to: doc, using: &rng)
        try RandomEdits.apply(40, to: peer, using: &rng)
        try doc.merge(other: peer)
        try RandomEdits.apply(10, to: doc, using: &rng)

        for compress in [true, false] {
            let loaded = try Document(doc.save(compress: compress))
            #expect(CanonicalDump.dump(loaded) == CanonicalDump.dump(doc), "seed \(seed)")
            #expect(loaded.heads() == doc.heads(), "seed \(seed)")
            #expect(loaded.getHistory() == doc.getHistory(), "seed \(seed)")
            #expect(loaded.save(compress: false) == doc.save(compress: false), "seed \(seed)")
        }
    }

    @Test("every change re-encodes to the same bytes and hash", arguments: 0..<8)
    func changesReencode(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed &+ 1000)
        let doc = Document()
        try RandomEdits.apply(60, to: doc, using: &rng)
        for hash in doc.getHistory() {
            let change = try #require(doc.change(hash: hash))
            let decoded = try DocumentState.decodeChange([UInt8](change.bytes))
            #expect(decoded.hash == hash)
            let reencoded = ChangeChunk.encode(decoded.stored)
            #expect(reencoded.hash == hash)
            #expect(reencoded.bytes == decoded.bytes)
        }
    }

    @Test("changes applied as encoded bytes rebuild the same document")
    func encodedChangesRebuild() throws {
        var rng = SeededGenerator(seed: 77)
        let doc = Document()
        try RandomEdits.apply(80, to: doc, using: &rng)
        let copy = Document()
        try copy.applyEncodedChanges(encoded: try doc.encodeChangesSince(heads: []))
        #expect(CanonicalDump.dump(copy) == CanonicalDump.dump(doc))
        #expect(copy.save(compress: false) == doc.save(compress: false))
    }
}

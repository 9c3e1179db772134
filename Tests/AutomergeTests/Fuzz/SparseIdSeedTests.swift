import AutomergeConformance
@testable import AutomergeFuzzing
@testable import Automerge
import Foundation
import Testing

/// The seeds that lead the fuzzers to the op id tables' edges hold what
/// sends ids there: counters just below 2^32 (`seed-*high-counters*`),
/// hundreds of actors (`seed-*many-actors*`), and ids spread over the whole
/// counter range, which `OpIdTable` keeps in its hash tables rather than its
/// dense runs (`seed-sparse-*`).
@Suite("Fuzz seeds: sparse op ids")
struct SparseIdSeedTests {
    /// Actors, ids and per-actor array slots of a document's ops, as its uncompressed save stores them.
    struct IdShape {
        var actors: Int
        var ids: Int
        var largestCounter: Int64

        init(_ doc: Document) throws {
            let chunk = try #require(RawChunk.split([UInt8](doc.save(compress: false)))?.first)
            let layout = try #require(DocumentLayout.parse(chunk.contents)).0
            let actorColumn = try #require(layout.opColumns.first { $0.spec == 33 })
            let counterColumn = try #require(layout.opColumns.first { $0.spec == 35 })
            let actorIndices = try #require(ColumnCodec.decodeRLE(actorColumn.data, signed: false))
            let counters = try #require(ColumnCodec.decodeDelta(counterColumn.data))
            var largest: [Int64: Int64] = [:]
            for (actor, counter) in zip(actorIndices, counters) {
                largest[actor!] = max(largest[actor!] ?? 0, counter!)
            }
            actors = layout.actors.count
            ids = counters.count
            largestCounter = largest.values.max() ?? 0
        }
    }

    static func seed(_ target: FuzzTarget, _ name: String) throws -> Data {
        try FileAccess.read(SharedFiles.packageRoot.appendingPathComponent("Corpus/\(target.rawValue)/\(name)").path)
    }

    /// The document a target makes of a seed.
    static func document(_ target: FuzzTarget, _ name: String) throws -> Document {
        let data = try seed(target, name)
        guard target == .changes else { return try Document(data) }
        let doc = try BaseDocument.load(actor: 9)
        try doc.applyEncodedChanges(encoded: data)
        return doc
    }

    @Test("the high-counter seeds' ops count on from just below 2^32", arguments: [
        (FuzzTarget.load, "seed-high-counters"), (.load, "seed-high-counters-changes"), (.changes, "seed-high-counters"),
        (.decode, "seed-model-high-counters"), (.decode, "seed-model-high-counters-changes"),
    ])
    func highCounters(_ target: FuzzTarget, _ name: String) throws {
        let shape = try IdShape(try Self.document(target, name))
        #expect(shape.largestCounter > Int64(SparseIdSeeds.highStartOp) + 20 && shape.largestCounter < 1 << 32)
    }

    @Test("the many-actor seeds have hundreds of actors whose counters climb past what the arrays hold", arguments: [
        (FuzzTarget.load, "seed-many-actors"), (.load, "seed-many-actors-changes"), (.changes, "seed-many-actors"),
        (.decode, "seed-model-many-actors"),
    ])
    func manyActors(_ target: FuzzTarget, _ name: String) throws {
        let shape = try IdShape(try Self.document(target, name))
        #expect(shape.actors > SparseIdSeeds.actorCount)
        #expect(shape.largestCounter < 100_000, "the ids are many actors', not high counters")
    }

    @Test("the sparse-counter seeds' ids are hashed, loading and applying", arguments: [
        (FuzzTarget.load, "seed-sparse-counters"), (.load, "seed-sparse-objects-changes"), (.load, "seed-sparse-elements"),
        (.changes, "seed-sparse-objects"),
    ])
    func sparseCounters(_ target: FuzzTarget, _ name: String) throws {
        let data = try Self.seed(target, name)
        var statistics = try Self.document(target, name).locked { $0.ops.opIdTableStatistics }
        if case .document(let stored, _)? = try StorageFile.decode([UInt8](data)).first {
            _ = try ChangeReconstruction.reconstruct(stored, verifyHeads: true, statistics: &statistics)
        }
        #expect(statistics.hashed >= 40, "\(name): \(statistics)")
    }

    @Test("an edit script can bring in hundreds of actors, and the many-actor script does")
    func opsScriptChoosesActors() throws {
        var script = EditScript(try Self.seed(.ops, "seed-many-actors"))
        try script.run()
        try script.converge()
        let shape = try IdShape(script.peers[0])
        #expect(shape.actors > SparseIdSeeds.actorCount)
        // Peers draw actors from spaces of their own: never the same actor on two peers.
        var twoPeers = EditScript(Data([EditScript.switchActorStep, 0, 7, 0, 0, 0, 0, 0, 0, 0, 48,
                                        EditScript.switchActorStep, 1, 7, 0, 1, 0, 0, 0, 0, 0, 49]))
        try twoPeers.run()
        #expect(twoPeers.peers[0].actor != twoPeers.peers[1].actor)
        try twoPeers.converge()
    }
}

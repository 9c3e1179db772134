import AutomergeConformance
import Foundation
import Testing
import AutomergeTestSupport
@_spi(Conformance) @testable import Automerge

/// The families of `automerge-bench hostile` at small sizes: loading each
/// crafted file does work and holds memory linear in its size. Counts,
/// never wall time: hash probes past an id's home slot and the dense slots
/// the op id tables hold, per entry, must not grow with the size.
@Suite("Hostile input: linear work", .ownThread)
struct HostileLoadWorkTests {
    static let sizes = [1 << 8, 1 << 10, 1 << 12]

    @Test("crafted files load with work and memory linear in their size", arguments: HostileInputs.families.map(\.name))
    func linearWork(_ name: String) throws {
        let family = try #require(HostileInputs.family(named: name))
        for ops in Self.sizes {
            for (kind, bytes) in [("crafted", try family.crafted(ops)), ("control", try family.control(ops))] {
                let context = Comment(rawValue: "\(name) \(kind), \(ops) ops")
                var statistics = try Self.rebuildStatistics(of: bytes, rejected: family.rejected, context)
                if family.rejected {
                    #expect(throws: (any Error).self, context) { try HostileInputs.deliver(bytes, family.delivery) }
                } else {
                    statistics = statistics + (try HostileInputs.deliver(bytes, family.delivery)).locked { $0.ops.opIdTableStatistics }
                }
                // The many-actor families put root keys, which no op id table
                // holds; their per-change costs are counted in ConcurrentActorsWorkTests.
                if family.bytesPerRow > 0 { #expect(statistics.entries >= ops / 2, context) }
                #expect(statistics.extraProbes <= 4 * statistics.entries, context)
                #expect(statistics.denseSlots <= 4 * statistics.entries + 20 * statistics.tables, context)
            }
        }
    }

    /// The op id tables' statistics of rebuilding the changes of the file's
    /// document chunk, if it starts with one.
    static func rebuildStatistics(of bytes: [UInt8], rejected: Bool, _ context: Comment) throws -> OpIdTable.Statistics {
        var statistics = OpIdTable.Statistics()
        guard case .document(let document, _)? = try StorageFile.decode(bytes, verifyHeads: false).first else { return statistics }
        do {
            _ = try ChangeReconstruction.reconstruct(document, verifyHeads: true, statistics: &statistics)
            #expect(!rejected, context)
        } catch {
            #expect(rejected, context)
        }
        return statistics
    }

    /// The crafted files are what they claim: the clustered counters really
    /// are in the file, and the actor family has an actor per op.
    @Test func craftedFilesCarryTheirShape() throws {
        let ops = 256
        let changes = try Document(Data(HostileInputs.family(named: "change-chunks")!.crafted(ops))).getHistory()
        #expect(changes.count == ops)
        let counters = HostileInputs.clusteredCounters(ops)
        let document = try Document(Data(HostileInputs.family(named: "map-puts")!.crafted(ops)))
        #expect(document.length(obj: .ROOT) == UInt64(ops))
        let maxOp = document.locked { $0.ops.maxOp }
        #expect(UInt64(maxOp) == UInt64(counters[ops - 1]))
        let actors = try Document(Data(HostileInputs.family(named: "actors")!.crafted(ops)))
        #expect(actors.locked { $0.ops.actors.count } == ops)
    }

    /// Each chunk may declare the minimum row allowance, however small it
    /// is; the input as a whole may not claim it once per chunk.
    @Test func manySmallChunksShareOneRowBudget() throws {
        let document = Document()
        let list = try document.putObject(obj: .ROOT, key: "zeros", ty: .List)
        try document.splice(obj: list, start: 0, delete: 0, values: Array(repeating: .Null, count: 1_000))
        let change = [UInt8](try document.encodeChangesSince(heads: []))
        var limits = DecodeLimits()
        limits.minRows = 2_000
        limits.rowsPerByte = 1
        #expect(change.count < 200, "the 1,001 rows are RLE runs: \(change.count) bytes")
        _ = try StorageFile.decode(change, limits: limits)
        let fiveTimes = Array([[UInt8]](repeating: change, count: 5).joined())
        #expect(throws: LoadError.self) { _ = try StorageFile.decode(fiveTimes, limits: limits) }
        #expect(throws: Never.self) { _ = try StorageFile.decode(fiveTimes) }
    }

    /// Op ids that tie on the counter order by actor bytes, however many
    /// actors share a prefix, and however the actors arrived.
    @Test func actorOrderFollowsBytes() {
        var table = ActorTable()
        var random = StorageTestRandom(seed: 7)
        var actors: [ActorId] = []
        for _ in 0..<500 {
            // Short actors, shared 8-byte prefixes, and random ones.
            let length = [1, 2, 8, 9, 16, 32].randomElement(using: &random)!
            var bytes = (0..<length).map { _ in UInt8(random.next() % 3) }
            if random.next() % 4 == 0 { bytes = [UInt8](repeating: 1, count: 8) + bytes }
            actors.append(ActorId(data: Data(bytes))!)
        }
        let indices = table.intern(contentsOf: actors)
        for _ in 0..<20_000 {
            let (a, b) = (Int(random.next() % 500), Int(random.next() % 500))
            let expected = actors[a] < actors[b]
            #expect(table.precedes(OpId(counter: 9, actor: indices[a]), OpId(counter: 9, actor: indices[b])) == expected)
        }
    }
}

/// Many actors, one change each, none depending on another: every change is
/// a head and brings an actor. Nothing per change may grow with the actors
/// or heads already there.
@Suite("Hostile input: many concurrent actors", .ownThread)
struct ConcurrentActorsWorkTests {
    /// The canonical-form proofs on the second core learn each actor once:
    /// handing them the whole actor table with every batch of checked
    /// changes made one change chunk per new actor quadratic in time and
    /// memory.
    @Test("each actor is handed to the proofs once", arguments: [256, 1_024, 4_096])
    func actorsHandedOverOnce(changes count: Int) throws {
        let bytes = try HostileInputs.family(named: "concurrent-actors")!.crafted(count)
        let changes = try StorageBridge.changes(in: bytes)
        let state = DocumentState(actor: ActorId(), encoding: .unicodeScalar)
        var checker = ChangeChecker(ops: state.ops, known: KnownChanges(history: state.history, pending: nil))
        let outcome = checker.check(changes, in: Array(changes.indices))
        #expect(outcome.error == nil && outcome.firstNonCanonical == nil)
        #expect(outcome.ready.count == count)
        #expect(outcome.actorsHandedOver <= count, "\(outcome.actorsHandedOver) actors handed over for \(count) actors")
    }

    /// A peer choosing the actors of concurrent changes chooses where each
    /// new op sorts among a key's ops and among the successors of the op it
    /// overwrites: each sorting first shifted the whole array, n² for n.
    @Test("ops that each sort first, of one key or as successors of one op, shift at most a segment each")
    func opsSortingFirst() throws {
        let ops = 2_048, segment = SegmentedArray<Op>.segmentCapacity
        let conflict = try Document(Data(HostileInputs.family(named: "concurrent-key-desc")!.crafted(ops)))
        let keyRun = conflict.locked { $0.ops.entries(of: $0.ops.objects[0])[MapKey("k")]?.longestRun }
        #expect(try conflict.getAll(obj: .ROOT, key: "k").count == ops)
        #expect(keyRun.map { $0 <= segment } == true, "one insert into the key's ops shifts \(String(describing: keyRun))")

        let overwritten = try Document(Data(HostileInputs.family(named: "concurrent-overwrites")!.crafted(ops)))
        let (opsRun, successorsRun) = overwritten.locked { state in
            let keyOps = state.ops.entries(of: state.ops.objects[0])[MapKey("k")]
            return (keyOps?.longestRun, keyOps?.map(\.successors.longestRun).max())
        }
        #expect(try overwritten.getAll(obj: .ROOT, key: "k").count == ops - 1)
        #expect(opsRun.map { $0 <= segment } == true, "one insert into the key's ops shifts \(String(describing: opsRun))")
        #expect(successorsRun.map { $0 <= segment } == true, "one successor insert shifts \(String(describing: successorsRun))")
    }

    @Test("the crafted file is what it claims: one actor and one head per change")
    func craftedFileShape() throws {
        let ops = 300
        let doc = try Document(Data(HostileInputs.family(named: "concurrent-actors")!.crafted(ops)))
        #expect(doc.heads().count == ops)
        #expect(doc.locked { $0.ops.actors.count } == ops)
        #expect(doc.length(obj: .ROOT) == UInt64(ops))
        let conflict = try Document(Data(HostileInputs.family(named: "concurrent-key")!.crafted(ops)))
        #expect(conflict.heads().count == ops)
        #expect(try conflict.getAll(obj: .ROOT, key: "k").count == ops)
    }
}

import Automerge
import AutomergeConformance
import Foundation

/// Seeds that send op ids down the op-id tables' hash-table paths
/// (`OpIdIndex` in a document, `StoredOpIdTable` while loading): both keep
/// an actor's ids in an array indexed by counter while the arrays stay a
/// few slots per id, and hash the rest. Real editing never leaves the
/// arrays, and neither does a mutation of an ordinary seed, so these seeds
/// start there: op counters just below 2^32, and hundreds of actors whose
/// Lamport counters climb one after another (the k-th actor's first counter
/// is past every op before it, so the arrays would need ~k slots each).
enum SparseIdSeeds {
    /// Where the high counters start: 2^32 - 4096, room for the seeds' own
    /// ops and for the edits the targets make after loading them.
    static let highStartOp: UInt64 = (1 << 32) - 4096

    /// How many actors the many-actor seeds have.
    static let actorCount = 300

    /// `doc` after it receives a change whose one op (a root map put) has
    /// the counter `startOp`: every op `doc` makes afterwards counts on from there.
    static func jump(_ doc: Document, to startOp: UInt64) throws {
        doc.commitReproducibly()
        let author = doc.fork()
        author.actor = FixedActor.numbered(0, space: 0x25)
        try author.put(obj: .ROOT, key: "jump", value: .Uint(startOp))
        author.commitReproducibly()
        let encoded = [UInt8](try author.encodeChangesSince(heads: doc.heads()))
        guard let chunk = RawChunk.split(encoded)?.first, chunk.type == 1,
              var (layout, _) = ChangeLayout.parse(chunk.contents) else {
            throw FuzzFailure("seeds: the jump is not one uncompressed change chunk")
        }
        // The op has no predecessor and names no other op, so any counter is consistent.
        layout.startOp = startOp
        try doc.applyEncodedChanges(encoded: Data(RawChunk(type: 1, contents: layout.contents).bytes))
    }

    /// `doc` edited by ``actorCount`` actors in turn, each committing
    /// `edit` as a change of its own on top of the one before.
    static func editByManyActors(_ doc: Document, _ edit: (Document, Int) throws -> Void) throws {
        let original = doc.actor
        for number in 0..<actorCount {
            doc.actor = FixedActor.numbered(UInt16(number), space: 0x23)
            try edit(doc, number)
            doc.commitReproducibly()
        }
        doc.actor = original
    }

    /// A list, a text with a mark and a map key, all made by `doc` in one change.
    static func addObjects(_ doc: Document, _ tag: String) throws {
        let list = try doc.putObject(obj: .ROOT, key: "list-\(tag)", ty: .List)
        for index in 0..<20 { try doc.insert(obj: list, index: UInt64(index), value: .Int(Int64(index))) }
        try doc.delete(obj: list, index: 3)
        let text = try doc.putObject(obj: .ROOT, key: "text-\(tag)", ty: .Text)
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "counters near the top")
        try doc.mark(obj: text, start: 0, end: 8, expand: .both, name: "bold", value: .Boolean(true))
        try doc.increment(obj: .ROOT, key: "count", by: 1)
        doc.commitReproducibly()
    }

    /// Each actor puts a key, inserts into a shared list and overwrites a shared key.
    static func manyActorEdit(list: ObjId) -> (Document, Int) throws -> Void {
        { doc, number in
            try doc.put(obj: .ROOT, key: "actor-\(number % 17)", value: .Int(Int64(number)))
            try doc.insert(obj: list, index: UInt64(number / 3), value: .Uint(UInt64(number)))
            try doc.put(obj: .ROOT, key: "last", value: .Int(Int64(number)))
        }
    }

    static func loadSeeds() throws -> [(name: String, data: Data)] {
        let high = Document()
        high.actor = FixedActor.make(20)
        try high.put(obj: .ROOT, key: "count", value: .Counter(0))
        try jump(high, to: highStartOp)
        try addObjects(high, "high")
        let many = Document()
        many.actor = FixedActor.make(21)
        let list = try many.putObject(obj: .ROOT, key: "shared", ty: .List)
        many.commitReproducibly()
        try editByManyActors(many, manyActorEdit(list: list))
        return [
            ("seed-high-counters", high.save(compress: false)),
            ("seed-high-counters-changes", try high.encodeChangesSince(heads: [])),
            ("seed-many-actors", many.save(compress: false)),
            ("seed-many-actors-changes", try many.encodeChangesSince(heads: [])),
        ] + (try sparseCounterSeeds())
    }

    /// Ids spread over the whole counter range (`HostileInputs`' clustered
    /// counters): too sparse for the op id tables' dense runs, so every
    /// lookup takes the hash tables.
    static func sparseCounterSeeds() throws -> [(name: String, data: Data)] {
        try [("seed-sparse-counters", "map-puts"), ("seed-sparse-objects-changes", "change-chunks"),
             ("seed-sparse-elements", "list-inserts")].map { name, family in
            guard let family = HostileInputs.family(named: family) else { throw FuzzFailure("seeds: no family \(family)") }
            return (name, Data(try family.crafted(48)))
        }
    }

    /// Changes to the `changes` target's base document.
    static func changeSeeds() throws -> [(name: String, data: Data)] {
        let base = try BaseDocument.load(actor: 3)
        guard case .Object(let list, _)? = try base.get(obj: .ROOT, key: "list") else {
            throw FuzzFailure("base document lacks its list")
        }
        let high = try BaseDocument.load(actor: 22)
        try jump(high, to: highStartOp)
        try addObjects(high, "high")
        let many = try BaseDocument.load(actor: 23)
        try editByManyActors(many, manyActorEdit(list: list))
        return [
            ("seed-high-counters", try high.encodeChangesSince(heads: base.heads())),
            // 300 change chunks would pass the target's -max_len; a document applies as its changes.
            ("seed-many-actors", many.save(compress: true)),
            ("seed-sparse-objects", Data(try HostileInputs.family(named: "change-chunks")!.crafted(48))),
        ]
    }

    /// The `decode` model, written at high counters and rewritten by many actors.
    static func decodeSeeds() throws -> [(name: String, data: Data)] {
        let high = Document()
        high.actor = FixedActor.make(5)
        try jump(high, to: highStartOp)
        try AutomergeEncoder(doc: high).encode(FuzzModel.sample(variant: 1))
        high.commitReproducibly()
        let many = Document()
        many.actor = FixedActor.make(5)
        var model = FuzzModel.sample()
        try AutomergeEncoder(doc: many).encode(model)
        many.commitReproducibly()
        try editByManyActors(many) { doc, number in
            model.count = number
            model.tags.append("tag \(number)")
            try AutomergeEncoder(doc: doc).encode(model)
        }
        return [
            ("seed-model-high-counters", high.save(compress: false)),
            // Change chunks carry no heads to check, so mutations of their counters can load.
            ("seed-model-high-counters-changes", try high.encodeChangesSince(heads: [])),
            ("seed-model-many-actors", many.save(compress: true)),
        ]
    }
}

extension FixedActor {
    /// The actor numbered `number` in the family `space`, distinct from ``make(_:)``'s.
    static func numbered(_ number: UInt16, space: UInt8) -> ActorId {
        ActorId(data: Data([0xf0, space, UInt8(number >> 8), UInt8(number & 0xFF)]))!
    }
}

import Automerge
import Foundation

/// Small, valid files crafted against a loader's worst cases, each beside a
/// benign control of the same size and shape: what `automerge-bench
/// hostile` measures and what the linear-work tests replay at small sizes.
///
/// Every family is made through the public API (documents edited one op per
/// change) plus byte-level rewrites of the changes that the API cannot
/// make (op counters chosen by the attacker), so the files are as valid as
/// any a peer could send.
public enum HostileInputs {
    /// One family of crafted inputs.
    public struct Family: Sendable {
        /// A short name, for the command line.
        public let name: String
        /// What the crafted input attacks.
        public let summary: String
        /// Whether both inputs are invalid (loading must fail with a typed error).
        public let rejected: Bool
        /// The crafted input with about `ops` ops.
        public let crafted: @Sendable (_ ops: Int) throws -> [UInt8]
        /// A benign input of the same size and shape.
        public let control: @Sendable (_ ops: Int) throws -> [UInt8]
        /// How both inputs reach a document.
        public var delivery: Delivery = .load
        /// The memory a load may take per op and change the input declares,
        /// beyond 64 MB and 64 bytes per input byte (docs/hostile-input.md);
        /// 0 where the input's size alone must bound it.
        public var bytesPerRow = 1024
    }

    /// How a family's bytes reach a document.
    public enum Delivery: String, Sendable {
        /// `Document(bytes)`: a load.
        case load
        /// Each chunk in an `applyEncodedChanges` call of its own, to one
        /// document: what a peer sending one change at a time costs.
        case calls
        /// Every chunk in one sync message, received by an empty document.
        case sync
    }

    /// A document that received `bytes` as `delivery` says.
    public static func deliver(_ bytes: [UInt8], _ delivery: Delivery) throws -> Document {
        switch delivery {
        case .load:
            return try Document(Data(bytes))
        case .calls:
            let document = Document()
            for chunk in RawChunk.split(bytes) ?? [] { try document.applyEncodedChanges(encoded: Data(chunk.bytes)) }
            return document
        case .sync:
            let document = Document()
            let message = SyncMessage(changes: (RawChunk.split(bytes) ?? []).map(\.bytes))
            try document.receiveSyncMessage(state: SyncState(), message: message.encode())
            return document
        }
    }

    /// Every family, in the order the bench prints them.
    public static let families: [Family] = [
        Family(name: "map-puts", summary: "root map puts whose op counters share one probe cluster of a multiplicative hash",
               rejected: false, crafted: { try mapPuts($0, counters: clusteredCounters) }, control: { try mapPuts($0, counters: nil) }),
        Family(name: "make-map", summary: "objects whose ids share one probe cluster (the object table)",
               rejected: false, crafted: { try makeMaps($0, counters: clusteredCounters) }, control: { try makeMaps($0, counters: nil) }),
        Family(name: "list-inserts", summary: "list elements whose ids share one probe cluster (the element index)",
               rejected: false, crafted: { try listInserts($0, counters: clusteredCounters) }, control: { try listInserts($0, counters: nil) }),
        Family(name: "change-chunks", summary: "objects with clustered ids, one change chunk each (applying changes)",
               rejected: false, crafted: { try changeChunks(makeMapChanges($0, counters: clusteredCounters)) },
               control: { try changeChunks(makeMapChanges($0, counters: nil)) }),
        Family(name: "rejected", summary: "clustered map puts in a document rejected only at its end (wrong heads)",
               rejected: true, crafted: { try withWrongHeads(mapPuts($0, counters: clusteredCounters)) },
               control: { try withWrongHeads(mapPuts($0, counters: nil)) }),
        Family(name: "actors", summary: "a document with one actor per op (each makes a map), actors in byte order",
               rejected: false, crafted: { try save(actorChanges($0)) }, control: { try makeMaps($0, counters: nil) }),
        Family(name: "actor-chunks", summary: "one change chunk per new actor",
               rejected: false, crafted: { try changeChunks(actorChanges($0)) }, control: { try changeChunks(makeMapChanges($0, counters: nil)) }),
        Family(name: "concurrent-actors", summary: "one change chunk per new actor, none depending on another: every change a head",
               rejected: false, crafted: { try changeChunks(concurrentActorChanges($0, sameKey: false)) },
               control: { try changeChunks(mapPutChanges($0, counters: nil)) }, bytesPerRow: 0),
        Family(name: "concurrent-doc", summary: "a saved document of one change per actor, none depending on another: as many heads as changes",
               rejected: false, crafted: { try save(concurrentActorChanges($0, sameKey: false)) },
               control: { try mapPuts($0, counters: nil) }),
        Family(name: "concurrent-key", summary: "one change chunk per new actor, none depending on another, all putting one key: one n-way conflict",
               rejected: false, crafted: { try changeChunks(concurrentActorChanges($0, sameKey: true)) },
               control: { try changeChunks(overwriteChanges($0)) }, bytesPerRow: 0),
        Family(name: "concurrent-key-desc", summary: "concurrent-key with the actors arriving in descending byte order: each op sorts first",
               rejected: false, crafted: { try changeChunks(concurrentActorChanges($0, sameKey: true, descending: true)) },
               control: { try changeChunks(overwriteChanges($0)) }, bytesPerRow: 0),
        Family(name: "concurrent-overwrites", summary: "one put overwritten concurrently by every other change's new actor, descending: one op with n successors",
               rejected: false, crafted: { try changeChunks(concurrentOverwrites($0)) },
               control: { try changeChunks(overwriteChanges($0)) }, bytesPerRow: 0),
        Family(name: "concurrent-inserts", summary: "inserts after one list element by new actors arriving highest id first: n siblings",
               rejected: false, crafted: { try changeChunks(concurrentInserts($0)) },
               control: { try changeChunks(listInsertChanges($0, counters: nil)) }, bytesPerRow: 0),
        Family(name: "concurrent-calls", summary: "one change per new actor, none depending on another, one applyEncodedChanges call each",
               rejected: false, crafted: { try changeChunks(concurrentActorChanges($0, sameKey: false)) },
               control: { try changeChunks(mapPutChanges($0, counters: nil)) }, delivery: .calls, bytesPerRow: 0),
        Family(name: "concurrent-sync", summary: "one change per new actor, none depending on another, in one sync message",
               rejected: false, crafted: { try changeChunks(concurrentActorChanges($0, sameKey: false)) },
               control: { try changeChunks(mapPutChanges($0, counters: nil)) }, delivery: .sync, bytesPerRow: 0),
        Family(name: "orphans", summary: "changes sent before their dependencies, one call each: the queue grows to half of them",
               rejected: false, crafted: { try changeChunks(orphanChanges($0)) },
               control: { try changeChunks(mapPutChanges($0, counters: nil)) }, delivery: .calls, bytesPerRow: 0),
        Family(name: "small-lists", summary: "one-element lists whose element ids lie far above their lists' (dense index allowance)",
               rejected: false, crafted: { try oneElementLists($0, elementsLast: true) }, control: { try oneElementLists($0, elementsLast: false) }),
        Family(name: "nested-lists", summary: "lists nested one inside the next, one element each",
               rejected: false, crafted: { try nestedLists($0) }, control: { try oneElementLists($0, elementsLast: false) }),
    ]

    /// The family called `name`.
    public static func family(named name: String) -> Family? { families.first { $0.name == name } }

    // MARK: Counters

    /// `count` increasing op counters whose packed ids (`counter << 32 |
    /// actor`) multiplied by the golden-ratio constant 0x9E3779B97F4A7C15
    /// share their top bits: every such id lands in one probe cluster of a
    /// table that hashes by that multiplication (the scheme this package
    /// used before its op id tables were seeded).
    public static func clusteredCounters(_ count: Int) -> [UInt32] {
        let multiplier: UInt32 = 0x7F4A_7C15  // the low 32 bits of the constant
        var inverse: UInt32 = 1
        for _ in 0..<5 { inverse = inverse &* (2 &- multiplier &* inverse) }  // Newton's iteration mod 2^32
        let counters = (1...max(1, count)).map { UInt32(truncatingIfNeeded: $0) &* inverse }
        return counters.filter { $0 != 0 }.sorted()
    }

    // MARK: Families

    /// `ops` puts into the root map, one change each.
    static func mapPutChanges(_ ops: Int, counters: ((Int) -> [UInt32])?) throws -> [[UInt8]] {
        try oneOpChanges(ops, counters: counters) { doc, step in
            try doc.put(obj: .ROOT, key: "k\(step)", value: .Uint(UInt64(step)))
        }
    }

    static func mapPuts(_ ops: Int, counters: ((Int) -> [UInt32])?) throws -> [UInt8] {
        try save(mapPutChanges(ops, counters: counters))
    }

    static func makeMapChanges(_ ops: Int, counters: ((Int) -> [UInt32])?) throws -> [[UInt8]] {
        try oneOpChanges(ops, counters: counters) { doc, step in
            _ = try doc.putObject(obj: .ROOT, key: "m\(step)", ty: .Map)
        }
    }

    static func makeMaps(_ ops: Int, counters: ((Int) -> [UInt32])?) throws -> [UInt8] {
        try save(makeMapChanges(ops, counters: counters))
    }

    /// A list made by the first op, then appended to by the others.
    static func listInserts(_ ops: Int, counters: ((Int) -> [UInt32])?) throws -> [UInt8] {
        try save(listInsertChanges(ops, counters: counters))
    }

    static func listInsertChanges(_ ops: Int, counters: ((Int) -> [UInt32])?) throws -> [[UInt8]] {
        var list = ObjId.ROOT
        return try oneOpChanges(ops, counters: counters) { doc, step in
            if step == 0 {
                list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
            } else {
                try doc.insert(obj: list, index: UInt64(step - 1), value: .Uint(UInt64(step)))
            }
        }
    }

    /// One change per op, each by a new actor; actors in byte order.
    static func actorChanges(_ ops: Int) throws -> [[UInt8]] {
        let doc = Document()
        for step in 0..<ops {
            doc.actor = ActorId(data: Data(actorBytes(step)))!
            _ = try doc.putObject(obj: .ROOT, key: "a\(step)", ty: .Map)
            doc.commitReproducibly()
        }
        return Storage.uncompressedChanges(doc)
    }

    /// One change per op, each the first change (sequence 1, no
    /// dependencies) of a new actor: `ops` concurrent changes, so the
    /// document has `ops` heads. With `sameKey` every change puts the same
    /// root key, a conflict `ops` values wide; otherwise each its own key.
    /// With `descending`, the actors arrive in descending byte order.
    static func concurrentActorChanges(_ ops: Int, sameKey: Bool, descending: Bool = false) throws -> [[UInt8]] {
        try (0..<ops).map { step in
            let doc = Document()
            doc.actor = ActorId(data: Data(actorBytes(descending ? ops - 1 - step : step)))!
            try doc.put(obj: .ROOT, key: sameKey ? "k" : "k\(step)", value: .Uint(UInt64(step)))
            doc.commitReproducibly()
            return Storage.uncompressedChanges(doc)[0]
        }
    }

    /// Two changes by each of `ops / 2` actors, every actor's second first:
    /// each waits in the queue until, after all of them, the first changes
    /// arrive and release them one by one.
    static func orphanChanges(_ ops: Int) throws -> [[UInt8]] {
        let pairs = try (0..<max(1, ops / 2)).map { step in
            let doc = Document()
            doc.actor = ActorId(data: Data(actorBytes(step)))!
            for value in [0, step + 1] {
                try doc.put(obj: .ROOT, key: "k\(step)", value: .Uint(UInt64(value)))
                doc.commitReproducibly()
            }
            return Storage.uncompressedChanges(doc)
        }
        return pairs.map { $0[1] } + pairs.map { $0[0] }
    }

    /// `ops` puts of one root key by one actor, each overwriting the last.
    static func overwriteChanges(_ ops: Int) throws -> [[UInt8]] {
        try oneOpChanges(ops, counters: nil) { doc, step in
            try doc.put(obj: .ROOT, key: "k", value: .Uint(UInt64(step)))
        }
    }

    /// A 16-byte actor id unique to `step`, in byte order of `step`.
    static func actorBytes(_ step: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xA5, count: 16)
        withUnsafeBytes(of: UInt64(step).bigEndian) { bytes.replaceSubrange(8..<16, with: $0) }
        return bytes
    }

    /// `ops / 2` lists holding one element each: with `elementsLast`, all
    /// lists are made first, so that each element's counter lies far above
    /// its list's; otherwise each list is followed by its element.
    static func oneElementLists(_ ops: Int, elementsLast: Bool) throws -> [UInt8] {
        let doc = Document()
        let count = max(1, ops / 2)
        if elementsLast {
            let lists = try (0..<count).map { try doc.putObject(obj: .ROOT, key: "l\($0)", ty: .List) }
            for (step, list) in lists.enumerated() { try doc.insert(obj: list, index: 0, value: .Uint(UInt64(step))) }
        } else {
            for step in 0..<count {
                let list = try doc.putObject(obj: .ROOT, key: "l\(step)", ty: .List)
                try doc.insert(obj: list, index: 0, value: .Uint(UInt64(step)))
            }
        }
        return [UInt8](doc.save())
    }

    /// `ops / 2` lists in chains of 128 (half the nesting documents allow),
    /// each list the only element of the one before.
    static func nestedLists(_ ops: Int) throws -> [UInt8] {
        let doc = Document()
        let count = max(1, ops / 2)
        for chain in stride(from: 0, to: count, by: 128) {
            var list = try doc.putObject(obj: .ROOT, key: "c\(chain)", ty: .List)
            for _ in 1..<min(128, count - chain) { list = try doc.insertObject(obj: list, index: 0, ty: .List) }
            try doc.insert(obj: list, index: 0, value: .Uint(UInt64(chain)))
        }
        return [UInt8](doc.save())
    }

    // MARK: Building blocks

    /// The changes of a document edited by `step` once per op, each op
    /// committed alone and then given the counter `counters(ops)` names
    /// (the i-th op the i-th smallest); nil keeps the counters as made.
    static func oneOpChanges(_ ops: Int, counters: ((Int) -> [UInt32])?, _ step: (Document, Int) throws -> Void) throws -> [[UInt8]] {
        let doc = Document()
        doc.actor = ActorId(data: Data(repeating: 0x11, count: 16))!
        for index in 0..<ops {
            try step(doc, index)
            doc.commitReproducibly()
        }
        let changes = Storage.uncompressedChanges(doc)
        guard let counters else { return changes }
        let chosen = counters(changes.count)
        guard chosen.count >= changes.count else { throw VectorError.generator("too few counters") }
        func remap(_ counter: Int64) -> Int64 { counter == 0 ? 0 : Int64(chosen[Int(counter) - 1]) }
        return try Storage.rewriteChanges(changes) { layout in
            guard layout.startOp == layout.sequence else { throw VectorError.generator("a step made more than one op") }
            layout.startOp = UInt64(remap(Int64(layout.startOp)))
            // Object, key element and predecessor counters.
            for spec: UInt64 in [2, 19, 115] where layout.columns.contains(where: { $0.spec == spec }) {
                try Storage.editValues(&layout.columns, spec) { values in values = values.map { $0.map(remap) } }
            }
        }
    }

    static func changeChunks(_ changes: [[UInt8]]) -> [UInt8] { Array(changes.joined()) }

    /// The document the changes make, saved.
    static func save(_ changes: [[UInt8]]) throws -> [UInt8] {
        [UInt8](try Document(Data(changeChunks(changes))).save())
    }

    /// `document` with heads that no change has: valid to the last column,
    /// rejected when the loader compares the heads it computed.
    static func withWrongHeads(_ document: [UInt8]) throws -> [UInt8] {
        try Storage.editDocument(document) { layout in layout.heads = [[UInt8](repeating: 0xAB, count: 32)] }
    }
}

import Automerge
import AutomergeConformance
import Foundation

/// Seed inputs made by this package (`scripts/fuzz-seeds.sh` writes them to
/// `Corpus/<target>/seed-*`). Deterministic: fixed actors, no timestamps.
public enum FuzzSeeds {
    public static func all(for target: FuzzTarget) throws -> [(name: String, data: Data)] {
        switch target {
        case .load: return try loadSeeds() + SparseIdSeeds.loadSeeds()
        case .changes: return try changeSeeds() + SparseIdSeeds.changeSeeds()
        case .decode: return try decodeSeeds() + SparseIdSeeds.decodeSeeds()
        case .ops: return opsSeeds()
        case .sync: return try syncSeeds()
        case .repoMessage: return try repoMessageSeeds()
        }
    }

    /// SplitMix64 bytes.
    static func randomBytes(seed: UInt64, count: Int) -> Data {
        var state = seed
        var out = Data()
        while out.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            withUnsafeBytes(of: z ^ (z >> 31)) { out.append(contentsOf: $0) }
        }
        return out.prefix(count)
    }

    /// The first peer of a random edit script, after the full exchange.
    static func scriptDocument(seed: UInt64, length: Int) throws -> Document {
        var script = EditScript(opsScript(seed: seed, length: length))
        try script.run()
        try script.converge()
        return script.peers[0]
    }

    /// A script that starts by creating a map, a list and a text on each peer,
    /// so the random steps after it find objects to edit.
    static func opsScript(seed: UInt64, length: Int) -> Data {
        var prefix: [UInt8] = []
        let putObject = UInt8(EditScript.Action.mapPutObject.rawValue * 3)
        for peer: UInt8 in 0..<3 {
            // peer's root map (object choice 0), key byte, type byte (0 map, 1 list, 2 text)
            prefix += [putObject + peer, 0, UInt8(peer), 1]
            prefix += [putObject + peer, 0, UInt8(peer) + 3, 2]
        }
        return Data(prefix) + randomBytes(seed: seed, count: length)
    }

    static func loadSeeds() throws -> [(name: String, data: Data)] {
        var seeds: [(String, Data)] = []
        let empty = Document()
        empty.actor = FixedActor.make(1)
        seeds.append(("seed-empty", empty.save()))
        let base = try BaseDocument.load(actor: 3)
        seeds.append(("seed-base", base.save(compress: false)))
        seeds.append(("seed-base-compressed", base.save(compress: true)))
        seeds.append(("seed-base-changes", try base.encodeChangesSince(heads: [])))
        for seed: UInt64 in 1...4 {
            let doc = try scriptDocument(seed: seed, length: 300 * Int(seed))
            seeds.append(("seed-script\(seed)", doc.save(compress: seed % 2 == 0)))
        }
        // A document chunk followed by change chunks, one of them waiting for a dependency.
        let fork = try BaseDocument.load(actor: 4)
        try fork.put(obj: .ROOT, key: "first", value: .Int(1))
        fork.commitReproducibly()
        let first = fork.encodeNewChanges()
        try fork.put(obj: .ROOT, key: "second", value: .Int(2))
        fork.commitReproducibly()
        let second = fork.encodeNewChanges()
        seeds.append(("seed-doc-then-change", base.save(compress: false) + first))
        seeds.append(("seed-doc-then-orphan", base.save(compress: false) + second))
        let model = Document()
        model.actor = FixedActor.make(5)
        try AutomergeEncoder(doc: model).encode(FuzzModel.sample())
        seeds.append(("seed-model", model.save(compress: true)))
        return seeds
    }

    static func changeSeeds() throws -> [(name: String, data: Data)] {
        var seeds: [(String, Data)] = []
        let base = try BaseDocument.load(actor: 3)
        let heads = base.heads()
        guard case .Object(let text, _)? = try base.get(obj: .ROOT, key: "text"),
              case .Object(let list, _)? = try base.get(obj: .ROOT, key: "list") else {
            throw FuzzFailure("base document lacks its text or list")
        }

        func fork(_ tag: UInt8, _ edits: (Document) throws -> Void) throws -> Document {
            let doc = try BaseDocument.load(actor: tag)
            try edits(doc)
            doc.commitReproducibly()
            return doc
        }
        let textEdits = try fork(10) { doc in
            try doc.spliceText(obj: text, start: 2, delete: 2, value: "y 👨‍👩‍👧")
            try doc.mark(obj: text, start: 1, end: 6, expand: .both, name: "link", value: .String("https://x"))
            try doc.mark(obj: text, start: 0, end: 3, expand: .none, name: "bold", value: .Null)
        }
        seeds.append(("seed-text", try textEdits.encodeChangesSince(heads: heads)))
        let listEdits = try fork(11) { doc in
            try doc.insert(obj: list, index: 0, value: .Timestamp(Date(timeIntervalSince1970: 1)))
            try doc.put(obj: list, index: 2, value: .Uint(7))
            try doc.delete(obj: list, index: 3)
            let inner = try doc.insertObject(obj: list, index: 1, ty: .List)
            try doc.insert(obj: inner, index: 0, value: .Counter(5))
            try doc.increment(obj: inner, index: 0, by: -2)
        }
        seeds.append(("seed-list", try listEdits.encodeChangesSince(heads: heads)))
        let mapEdits = try fork(12) { doc in
            try doc.increment(obj: .ROOT, key: "count", by: 10)
            try doc.delete(obj: .ROOT, key: "title")
            let map = try doc.putObject(obj: .ROOT, key: "new", ty: .Map)
            try doc.put(obj: map, key: "k", value: .Unknown(typeCode: 12, data: Data([9])))
            try doc.put(obj: map, key: "f", value: .F64(-0.0))
        }
        seeds.append(("seed-map", try mapEdits.encodeChangesSince(heads: heads)))

        // Several changes in a row, then only the second (missing its dependency).
        let series = try BaseDocument.load(actor: 13)
        var chunks: [Data] = []
        for index in 0..<3 {
            try series.spliceText(obj: text, start: UInt64(index), delete: 0, value: String(index))
            series.commitReproducibly(message: "change \(index)")
            chunks.append(series.encodeNewChanges())
        }
        seeds.append(("seed-series", chunks.reduce(Data(), +)))
        seeds.append(("seed-orphan", chunks[1]))
        seeds.append(("seed-reversed", chunks.reversed().reduce(Data(), +)))

        // A big change, which `Change.bytes` deflates.
        let big = try fork(14) { doc in
            try doc.spliceText(obj: text, start: 0, delete: 0, value: String(repeating: "long text ", count: 60))
        }
        if let hash = big.heads().first, let change = big.change(hash: hash) {
            seeds.append(("seed-compressed-change", change.bytes))
        }
        // A whole document, which applies as its changes.
        seeds.append(("seed-document", mapEdits.save(compress: false)))
        return seeds
    }

    static func decodeSeeds() throws -> [(name: String, data: Data)] {
        var seeds: [(String, Data)] = []
        for variant in 0..<5 {
            let doc = Document()
            doc.actor = FixedActor.make(5)
            try AutomergeEncoder(doc: doc).encode(FuzzModel.sample(variant: variant))
            seeds.append(("seed-model\(variant)", doc.save(compress: variant % 2 == 1)))
        }
        // Partial and mistyped models.
        let partial = Document()
        partial.actor = FixedActor.make(5)
        try partial.put(obj: .ROOT, key: "title", value: .Int(3))
        try partial.put(obj: .ROOT, key: "count", value: .F64(2.0))
        try partial.put(obj: .ROOT, key: "small", value: .Int(300))
        let notes = try partial.putObject(obj: .ROOT, key: "notes", ty: .List)
        try partial.insert(obj: notes, index: 0, value: .String("x"))
        seeds.append(("seed-mistyped", partial.save(compress: false)))
        // The model, then concurrent edits to it merged.
        let doc = Document()
        doc.actor = FixedActor.make(5)
        try AutomergeEncoder(doc: doc).encode(FuzzModel.sample())
        let peer = doc.fork()
        peer.actor = FixedActor.make(6)
        var changed = FuzzModel.sample(variant: 3)
        changed.items.append(changed.inner)
        try AutomergeEncoder(doc: peer).encode(changed)
        try AutomergeEncoder(doc: doc).encode(FuzzModel.sample(variant: 4))
        try doc.merge(other: peer)
        seeds.append(("seed-merged", doc.save(compress: false)))
        return seeds
    }

    static func opsSeeds() -> [(name: String, data: Data)] {
        var seeds: [(String, Data)] = []
        for (index, length) in [16, 64, 256, 1024].enumerated() {
            seeds.append(("seed-random\(index)", opsScript(seed: UInt64(100 + index), length: length)))
        }
        // Every action once per peer, arguments zero.
        seeds.append(("seed-every-action", opsScript(seed: 0, length: 0)
            + Data((0..<(EditScript.Action.allCases.count * 3)).flatMap { [UInt8($0), 0, 0, 0, 0] })))
        seeds.append(("seed-many-actors", manyActorsScript()))
        return seeds
    }

    /// Peer 0 types 420 characters, then 300 actors in turn each insert at
    /// the head of its list: the k-th actor's counter is past 420 + k, so
    /// its op-id array would need that many slots for one id, and the
    /// list's ids go to the hash table.
    static func manyActorsScript() -> Data {
        func step(_ action: EditScript.Action) -> UInt8 { UInt8(action.rawValue * 3) }  // on peer 0
        var script = [UInt8](opsScript(seed: 0, length: 0))
        for _ in 0..<60 {
            // peer 0's text, index 0, delete 0, snippet 12 ("abc def")
            script += [step(.textSplice), 0, 0, 0, 0, 12]
        }
        for number in 0..<SparseIdSeeds.actorCount {
            script += [EditScript.switchActorStep, 0, UInt8(number & 0xFF), UInt8(number >> 8)]
            // peer 0's list, index 0, Int16 value
            script += [step(.listInsert), 0, 0, 0, 0, UInt8(number & 0xFF), 0]
            script += [step(.commit)]
        }
        return Data(script)
    }
}

extension FuzzSeeds {
    /// Every message of real sync sessions, behind the two selector bytes of
    /// the setup in which it is the next message its receiver gets (or close
    /// to it), and saved states. The target's own pairs, also over a link
    /// that drops flags trailers (V1 messages, one change per entry) and
    /// with a read-only side; an empty document against prose (a whole
    /// document, V2 and V1); two empty documents; hand-made requests.
    static func syncSeeds() throws -> [(name: String, data: Data)] {
        var seeds: [(String, Data)] = []
        func add(_ name: String, _ prefix: [UInt8], _ payload: Data) {
            seeds.append(("seed-\(name)", Data(prefix) + payload))
        }
        func peers(pair: Int, readOnly: Bool = false) throws -> (SyncPeerUnderTest, SyncPeerUnderTest) {
            let (a, b) = try SyncDocuments.pair(pair)
            return (SyncPeerUnderTest("a", a, SyncState(readOnly: readOnly)), SyncPeerUnderTest("b", b))
        }

        for pair in 0..<SyncDocuments.pairCount {
            for legacy in [false, true] {
                let (a, b) = try peers(pair: pair)
                let name = "pair\(pair)\(legacy ? "-v1" : "")"
                for (number, sent) in try SyncWorld.transcript(a, b, legacyLink: legacy).enumerated() {
                    let prefix = SyncSetup.bytes(.midSession, pair: pair, rounds: sent.round, receiver: sent.to,
                                                 withPatches: number % 2 == 1, legacyLink: legacy)
                    add("\(name)-\(number)-to-\("ab"[sent.to])", prefix, sent.message)
                }
                for (side, peer) in [a, b].enumerated() {
                    let prefix = SyncSetup.bytes(.restored, pair: pair, rounds: 3, receiver: side, payloadState: true, legacyLink: legacy)
                    add("\(name)-state-\("ab"[side])", prefix, peer.state.encode())
                }
            }
            // Each pair's opening message, to a fresh empty document.
            let (a, _) = try peers(pair: pair)
            if let opening = a.doc.generateSyncMessage(state: a.state) {
                add("pair\(pair)-opening-to-fresh", SyncSetup.bytes(.fresh, pair: pair), opening)
            }
        }

        // A read-only side that later stops being read-only (flags 0x86, then 0x85).
        let (reader, writer) = try peers(pair: 0, readOnly: true)
        var sent = try SyncWorld.transcript(reader, writer, legacyLink: false)
        reader.state.isReadOnly = false
        sent += try SyncWorld.transcript(reader, writer, legacyLink: false, firstRound: (sent.last?.round ?? 0) + 1)
        for (number, message) in sent.enumerated() {
            let prefix = message.to == 0
                ? SyncSetup.bytes(.readOnly, pair: 0, rounds: message.round, receiver: 0)
                : SyncSetup.bytes(.midSession, pair: 0, rounds: message.round, receiver: 1)
            add("read-only-\(number)-to-\("ab"[message.to])", prefix, message.message)
        }

        // An empty document against a page of prose: the whole document in
        // one V2 message, or its changes one per V1 entry.
        for legacy in [false, true] {
            let empty = Document()
            empty.actor = FixedActor.make(0x3F)
            let prose = SyncPeerUnderTest("prose", try SyncSeedDocuments.prose(actor: 0x3E, sentences: SyncSeedDocuments.sentences.count))
            let name = legacy ? "moby-v1" : "moby"
            for (number, sent) in try SyncWorld.transcript(SyncPeerUnderTest("empty", empty), prose, legacyLink: legacy).enumerated() {
                let prefix = sent.to == 0
                    ? SyncSetup.bytes(.fresh, pair: number % SyncDocuments.pairCount, withPatches: legacy, legacyLink: legacy)
                    : SyncSetup.bytes(.midSession, pair: 1, rounds: sent.round, receiver: 0, legacyLink: legacy)
                add("\(name)-\(number)-to-\(sent.to == 0 ? "empty" : "prose")", prefix, sent.message)
            }
        }

        // Two empty documents.
        let (first, second) = (Document(), Document())
        first.actor = FixedActor.make(0x3C)
        second.actor = FixedActor.make(0x3D)
        for (number, sent) in try SyncWorld.transcript(SyncPeerUnderTest("a", first), SyncPeerUnderTest("b", second), legacyLink: false).enumerated() {
            add("empty-empty-\(number)", SyncSetup.bytes(.fresh, pair: number % SyncDocuments.pairCount), sent.message)
        }

        // Hand-made: the opening message as automerge-swift 0.6.1 (Rust 0.6)
        // writes its trailer; a request for one change by hash (a V1 peer); a
        // request to start over; the empty saved state.
        let (a, b) = try peers(pair: 0)
        if let opening = a.doc.generateSyncMessage(state: a.state) {
            var message = try SyncMessage(bytes: opening)
            message.flags = nil
            add("rust06-trailer", SyncSetup.bytes(.midSession, pair: 0, receiver: 1), message.encode() + [0x02, 0x01, 0x02])
        }
        let history = b.doc.getHistory()
        add("need-one-change", SyncSetup.bytes(.midSession, pair: 0, receiver: 1),
            SyncMessage(version: .v1, need: [history[history.count / 2]]).encode())
        add("reset-request", SyncSetup.bytes(.midSession, pair: 0, rounds: 2, receiver: 0),
            SyncMessage(version: .v1, heads: b.doc.heads().sorted(), have: [SyncHave()], flags: [.supportsSyncReset]).encode())
        add("state-empty", SyncSetup.bytes(.restored, pair: 2, rounds: 1, payloadState: true), Data([0x43, 0x00]))
        return seeds
    }
}

extension String {
    /// The character at `offset` ("ab"[1] is "b").
    fileprivate subscript(offset: Int) -> String { String(self[index(startIndex, offsetBy: offset)]) }
}

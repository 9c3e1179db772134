import Automerge
import AutomergeConformance
import Foundation

/// `ops`: the input is an edit script for three peers (see ``EditScript``).
/// Local edits may fail, but only with `AutomergeError`; exchanging changes
/// between peers, saving and loading never fail. Merges report patches that
/// turn the old state into the new one. After a full exchange all peers have
/// the same dump, heads and uncompressed save.
enum OpsTarget {
    static func run(_ data: Data) throws(FuzzFailure) {
        var script = EditScript(data)
        try script.run()
        try script.converge()
    }
}

/// Reads input bytes as a sequence of steps. Each step starts with one byte:
/// `byte % 3` is the peer, `byte / 3` the action (``EditScript/Action``);
/// the action reads its arguments (object, key, index, value...) from the
/// bytes that follow. The byte 255 instead switches a peer's actor
/// (``switchActorStep``). Running out of bytes ends the script. Any byte
/// string is a valid script, so the fuzzer's mutations always mean something.
struct EditScript {
    enum Action: Int, CaseIterable {
        case mapPut, mapPutObject, mapDelete, mapIncrement
        case listInsert, listInsertObject, listDelete, listPut, listPutObject, listSplice, listIncrement
        case textSplice, textMark, textUpdate, textInsertScalar, textDelete
        case commit, commitWithMessage
        case merge, mergeWithPatches, sendChangesSince, sendNewChanges, sendSave
        case saveAndLoad, forkAtHeads, readAll
    }

    static let keys = ["a", "b", "c", "é", "e\u{301}", "日本", "🔑", "", "_root", "list"]
    static let snippets = ["x", "hello", "é", "e\u{301}", "👍🏽", "🇯🇵", "👨‍👩‍👧", "שלום", "\n", "", "\r\n", "\u{FFFC}", "abc def"]
    static let markNames = ["bold", "link", "comment", "x"]

    /// The step byte that makes a peer write as another of 65,536 actors
    /// (arguments: peer byte, actor number uint16), so that a script can
    /// bring in hundreds of actors. It is a byte of its own rather than an
    /// action so that every other step byte keeps its meaning and the
    /// committed crash inputs replay as minimized (255 meant `listPut` on
    /// peer 0, which the byte 21 still means).
    static let switchActorStep: UInt8 = 0xFF

    private var bytes: [UInt8]
    private var position = 0
    private(set) var peers: [Document]
    /// Every step taken, for the failure message.
    private(set) var log: [String] = []

    init(_ data: Data) {
        bytes = [UInt8](data)
        peers = (0..<3).map { index in
            let doc = Document()
            doc.actor = FixedActor.make(UInt8(index + 1))
            return doc
        }
    }

    var atEnd: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func uint16() -> UInt16 { UInt16(byte()) | UInt16(byte()) << 8 }

    mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) { value |= UInt64(byte()) << UInt64(shift) }
        return value
    }

    mutating func pick<T>(_ options: [T]) -> T { options[Int(byte()) % options.count] }

    /// An index into a sequence of `length`; now and then one past the end or far beyond it.
    mutating func index(_ length: UInt64, allowEnd: Bool) -> UInt64 {
        let raw = UInt64(uint16())
        if raw == 0xFFFF { return UInt64.max }
        return raw % (length + (allowEnd ? 2 : 1))
    }

    mutating func string() -> String {
        let choice = byte()
        if choice < 200 { return Self.snippets[Int(choice) % Self.snippets.count] }
        let count = Int(byte() % 12)
        return String(decoding: (0..<count).map { _ in byte() }, as: UTF8.self)
    }

    mutating func key() -> String {
        let choice = byte()
        if choice < 230 { return Self.keys[Int(choice) % Self.keys.count] }
        return string()
    }

    mutating func scalar() -> ScalarValue {
        switch byte() % 12 {
        case 0: return .Int(Int64(Int16(bitPattern: uint16())))
        case 1: return .Int(Int64(bitPattern: uint64()))
        case 2: return .Uint(uint64())
        case 3: return .F64(Double(bitPattern: uint64()))
        case 4: return .String(string())
        case 5: return .Boolean(byte() & 1 == 1)
        case 6: return .Null
        case 7: return .Bytes(Data((0..<Int(byte() % 6)).map { _ in byte() }))
        case 8: return .Timestamp(Date(timeIntervalSince1970: Double(Int64(Int32(bitPattern: UInt32(uint16()) << 16 | UInt32(uint16()))))))
        case 9: return .Counter(Int64(Int8(bitPattern: byte())))
        case 10: return .F64([0.0, -0.0, 1.5, .infinity, -.infinity, .nan, 1e300, .leastNonzeroMagnitude][Int(byte()) % 8])
        default: return .Unknown(typeCode: 10 + byte() % 6, data: Data((0..<Int(byte() % 4)).map { _ in byte() }))
        }
    }

    mutating func objType() -> ObjType { pick([.Map, .List, .Text]) }

    mutating func object(in doc: Document, _ type: ObjType) -> ObjId? {
        let objects = Objects.all(doc, limit: 512).filter { $0.1 == type }
        guard !objects.isEmpty else { return nil }
        return objects[Int(byte()) % objects.count].0
    }

    /// Runs steps until the input ends.
    mutating func run() throws(FuzzFailure) {
        var steps = 0
        while !atEnd && steps < 2_000 {
            steps += 1
            let head = byte()
            if head == Self.switchActorStep {
                switchActor()
                continue
            }
            let peer = Int(head % 3)
            let action = Action.allCases[Int(head / 3) % Action.allCases.count]
            do {
                try step(action, peer: peer)
            } catch let failure as FuzzFailure {
                throw FuzzFailure("\(failure.message)\nsteps:\n\(log.suffix(40).joined(separator: "\n"))")
            } catch {
                // A local edit the document refused: allowed, but only with the library's error type.
                _ = String(describing: error)
                guard error is AutomergeError else {
                    throw FuzzFailure("ops: \(action) on peer \(peer) threw untyped \(type(of: error)): \(error)")
                }
                log.append("  -> \(error)")
            }
        }
    }

    private mutating func step(_ action: Action, peer: Int) throws {
        let doc = peers[peer]
        func note(_ text: String) { log.append("\(peer): \(action) \(text)") }
        switch action {
        case .mapPut:
            guard let obj = object(in: doc, .Map) else { return }
            let key = self.key(), value = scalar()
            note("\(obj) \(key.debugDescription) \(value)")
            try doc.put(obj: obj, key: key, value: value)
        case .mapPutObject:
            guard let obj = object(in: doc, .Map) else { return }
            let key = self.key(), type = self.objType()
            note("\(obj) \(key.debugDescription) \(type)")
            _ = try doc.putObject(obj: obj, key: key, ty: type)
        case .mapDelete:
            guard let obj = object(in: doc, .Map) else { return }
            let keys = doc.keys(obj: obj)
            let key = keys.isEmpty || byte() < 32 ? self.key() : keys[Int(byte()) % keys.count]
            note("\(obj) \(key.debugDescription)")
            try doc.delete(obj: obj, key: key)
        case .mapIncrement:
            guard let obj = object(in: doc, .Map) else { return }
            let key = self.key(), by = Int64(Int8(bitPattern: byte()))
            note("\(obj) \(key.debugDescription) \(by)")
            try doc.increment(obj: obj, key: key, by: by)
        case .listInsert:
            guard let obj = object(in: doc, .List) else { return }
            let index = self.index(doc.length(obj: obj), allowEnd: true), value = scalar()
            note("\(obj) \(index) \(value)")
            try doc.insert(obj: obj, index: index, value: value)
        case .listInsertObject:
            guard let obj = object(in: doc, .List) else { return }
            let index = self.index(doc.length(obj: obj), allowEnd: true), type = self.objType()
            note("\(obj) \(index) \(type)")
            _ = try doc.insertObject(obj: obj, index: index, ty: type)
        case .listDelete:
            guard let obj = object(in: doc, .List) else { return }
            let index = self.index(doc.length(obj: obj), allowEnd: false)
            note("\(obj) \(index)")
            try doc.delete(obj: obj, index: index)
        case .listPut:
            guard let obj = object(in: doc, .List) else { return }
            let index = self.index(doc.length(obj: obj), allowEnd: false), value = scalar()
            note("\(obj) \(index) \(value)")
            try doc.put(obj: obj, index: index, value: value)
        case .listPutObject:
            guard let obj = object(in: doc, .List) else { return }
            let index = self.index(doc.length(obj: obj), allowEnd: false), type = self.objType()
            note("\(obj) \(index) \(type)")
            _ = try doc.putObject(obj: obj, index: index, ty: type)
        case .listSplice:
            guard let obj = object(in: doc, .List) else { return }
            let start = self.index(doc.length(obj: obj), allowEnd: true)
            let delete = Int64(Int8(bitPattern: byte())) % 8
            let values = (0..<Int(byte() % 4)).map { _ in scalar() }
            note("\(obj) \(start) \(delete) \(values)")
            try doc.splice(obj: obj, start: start, delete: delete, values: values)
        case .listIncrement:
            guard let obj = object(in: doc, .List) else { return }
            let index = self.index(doc.length(obj: obj), allowEnd: false), by = Int64(Int8(bitPattern: byte()))
            note("\(obj) \(index) \(by)")
            try doc.increment(obj: obj, index: index, by: by)
        case .textSplice:
            guard let obj = object(in: doc, .Text) else { return }
            let start = self.index(doc.length(obj: obj), allowEnd: true)
            let delete = Int64(Int8(bitPattern: byte())) % 5
            let text = self.string()
            note("\(obj) \(start) \(delete) \(text.debugDescription)")
            try doc.spliceText(obj: obj, start: start, delete: delete, value: text)
        case .textMark:
            guard let obj = object(in: doc, .Text) else { return }
            let length = doc.length(obj: obj)
            let start = self.index(length, allowEnd: true)
            let end = start == UInt64.max ? start : start + UInt64(byte() % 8)
            let expand = pick([ExpandMark.before, .after, .both, .none])
            let name = byte() < 240 ? pick(Self.markNames) : string()
            let value: ScalarValue = byte() % 4 == 0 ? .Null : scalar()
            note("\(obj) \(start)..<\(end) \(expand) \(name.debugDescription) \(value)")
            try doc.mark(obj: obj, start: start, end: end, expand: expand, name: name, value: value)
        case .textUpdate:
            guard let obj = object(in: doc, .Text) else { return }
            var text = try doc.text(obj: obj)
            let edit = byte() % 4
            let piece = string()
            switch edit {
            case 0: text = piece + text
            case 1: text += piece
            case 2: text = String(text.reversed())
            default: text = piece
            }
            note("\(obj) \(text.debugDescription)")
            try doc.updateText(obj: obj, value: text)
        case .textInsertScalar:
            guard let obj = object(in: doc, .Text) else { return }
            let index = self.index(doc.length(obj: obj), allowEnd: true), value = scalar()
            note("\(obj) \(index) \(value)")
            try doc.insert(obj: obj, index: index, value: value)
        case .textDelete:
            guard let obj = object(in: doc, .Text) else { return }
            let index = self.index(doc.length(obj: obj), allowEnd: false)
            note("\(obj) \(index)")
            try doc.delete(obj: obj, index: index)
        case .commit:
            note("")
            doc.commitReproducibly()
        case .commitWithMessage:
            let message = self.string()
            let time = Date(timeIntervalSince1970: Double(uint16()))
            note("\(message.debugDescription) \(time)")
            doc.commitWith(message: message, timestamp: time)
        case .merge:
            let other = peers[Int(byte()) % 3]
            note("from \(peers.firstIndex { $0 === other }!)")
            try exchange("merge") { try doc.merge(other: other) }
        case .mergeWithPatches:
            let other = peers[Int(byte()) % 3]
            note("from \(peers.firstIndex { $0 === other }!)")
            var mirror = PatchMirror(doc)
            var patches: [Patch] = []
            try exchange("mergeWithPatches") { patches = try doc.mergeWithPatches(other: other) }
            try mirror.apply(patches)
            try mirror.check(against: doc, "ops: mergeWithPatches \(patches)")
        case .sendChangesSince:
            let other = peers[Int(byte()) % 3]
            note("to \(peers.firstIndex { $0 === other }!)")
            try exchange("encodeChangesSince(heads of receiver)") {
                // The receiver's heads may include changes the sender lacks.
                let heads = other.heads().filter { doc.change(hash: $0) != nil }
                try other.applyEncodedChanges(encoded: try doc.encodeChangesSince(heads: Set(heads)))
            }
        case .sendNewChanges:
            let other = peers[Int(byte()) % 3]
            note("to \(peers.firstIndex { $0 === other }!)")
            // New changes may lack dependencies at the receiver: they wait in its queue.
            try exchange("encodeNewChanges") { try other.applyEncodedChanges(encoded: doc.encodeNewChanges()) }
        case .sendSave:
            let other = peers[Int(byte()) % 3]
            let compress = byte() & 1 == 1
            note("to \(peers.firstIndex { $0 === other }!) compress: \(compress)")
            try exchange("applyEncodedChanges(save)") { try other.applyEncodedChanges(encoded: doc.save(compress: compress)) }
        case .saveAndLoad:
            let compress = byte() & 1 == 1
            note("compress: \(compress)")
            let heads = doc.heads()
            let actor = doc.actor
            let reloaded: Document
            do { reloaded = try Document(doc.save(compress: compress)) } catch {
                throw FuzzFailure("ops: a peer's save does not load: \(error)")
            }
            reloaded.actor = actor
            try Check.that(reloaded.heads() == heads, "ops: heads differ after save and load")
            try Check.sameContent(doc, reloaded, "ops: save and load")
            peers[peer] = reloaded
        case .forkAtHeads:
            let other = peers[Int(byte()) % 3]
            note("heads of \(peers.firstIndex { $0 === other }!)")
            let heads = other.heads().filter { doc.change(hash: $0) != nil }
            let fork: Document
            do { fork = try doc.forkAt(heads: Set(heads)) } catch {
                throw FuzzFailure("ops: forkAt(known heads) failed: \(error)")
            }
            // Reading the fork at its own heads gives the fork.
            _ = CanonicalDump.dump(fork)
            for (obj, type) in Objects.all(fork, limit: 64) where type == .Text {
                let text = try fork.text(obj: obj)
                let atHeads = try doc.textAt(obj: obj, heads: Set(heads))
                try Check.that(text == atHeads, "ops: forkAt and textAt disagree on \(obj): \(text.debugDescription) vs \(atHeads.debugDescription)")
            }
        case .readAll:
            note("")
            Check.readEverything(doc)
        }
    }

    /// Each peer has actors of its own: two peers writing as one actor would
    /// make different changes with one sequence number, which a merge
    /// rightly refuses.
    private mutating func switchActor() {
        let peer = Int(byte() % 3), number = uint16()
        log.append("\(peer): switchActor \(number)")
        peers[peer].actor = FixedActor.numbered(number, space: 0x30 + UInt8(peer))
    }

    /// Exchanging changes between well-formed peers must never fail.
    private func exchange(_ what: String, _ body: () throws -> Void) throws(FuzzFailure) {
        do { try body() } catch let failure as FuzzFailure { throw failure } catch {
            throw FuzzFailure("ops: \(what) between peers failed: \(error)")
        }
    }

    /// Merges every peer with every other, then requires equal dumps, heads
    /// and uncompressed saves, and a save that reloads to the same dump.
    ///
    /// A document's save lists its changes in the order they entered its
    /// history, as Rust's does (byte compatibility with Rust depends on it),
    /// so peers that received concurrent changes in different orders save
    /// the same content with the change rows in another order. Saves are
    /// compared byte for byte between peers with the same history order, and
    /// between every pair after rebuilding each peer from its changes in
    /// one canonical order (sorted by hash, then topologically).
    mutating func converge() throws(FuzzFailure) {
        let steps = log.suffix(60).joined(separator: "\n")
        do {
            for (to, from) in [(0, 1), (0, 2), (1, 0), (2, 0)] { try peers[to].merge(other: peers[from]) }
        } catch {
            throw FuzzFailure("ops: final merge failed: \(error)\nsteps:\n\(steps)")
        }
        let heads = peers.map { $0.heads() }
        let saves = peers.map { $0.save(compress: false) }
        let histories = peers.map { $0.getHistory() }
        let canonical = try peers.map { peer throws(FuzzFailure) in try Self.canonicalSave(peer) }
        for index in 1..<3 {
            try Check.that(heads[index] == heads[0], "ops: peers 0 and \(index) have different heads after a full exchange\nsteps:\n\(steps)")
            do { try Check.sameContent(peers[0], peers[index], "ops: peers 0 and \(index) after a full exchange") } catch {
                throw FuzzFailure("\(error.message)\nsteps:\n\(steps)")
            }

            try Check.that(Set(histories[index]) == Set(histories[0]), "ops: peers 0 and \(index) have different changes after a full exchange\nsteps:\n\(steps)")
            if histories[index] == histories[0] {
                try Check.that(saves[index] == saves[0], "ops: peers 0 and \(index) have the same history but save different bytes\nsteps:\n\(steps)")
            }
            try Check.that(canonical[index] == canonical[0], "ops: peers 0 and \(index), rebuilt in canonical change order, save different bytes\nsteps:\n\(steps)")
        }
        do { try Check.saveReload(peers[0], "ops, converged") } catch {
            throw FuzzFailure("\(error.message)\nsteps:\n\(steps)")
        }
    }

    /// The uncompressed save of a document rebuilt from `doc`'s changes applied in hash order.
    static func canonicalSave(_ doc: Document) throws(FuzzFailure) -> Data {
        var bytes = Data()
        for hash in doc.getHistory().sorted() {
            guard let change = doc.change(hash: hash) else { throw FuzzFailure("ops: change \(hash) in history but not readable") }
            bytes.append(change.bytes)
        }
        let rebuilt = Document()
        do { try rebuilt.applyEncodedChanges(encoded: bytes) } catch {
            throw FuzzFailure("ops: a peer's changes, applied in hash order, fail: \(error)")
        }
        try Check.that(rebuilt.heads() == doc.heads(), "ops: a peer's changes, applied in hash order, give other heads")
        return rebuilt.save(compress: false)
    }
}

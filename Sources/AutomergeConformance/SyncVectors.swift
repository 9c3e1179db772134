import Automerge
import Foundation

/// One sync vector: a sync message, persisted sync state or Bloom filter,
/// and what a decoder must make of it. Listed in the `sync` array of
/// `Vectors/manifest.json`, apart from the document vectors.
public struct SyncVector: Sendable {
    /// Which decoder reads the file.
    public enum Kind: String, Sendable {
        /// A sync message (`SyncMessage(decoding:)`).
        case message
        /// A persisted sync state (`SyncState(bytes:)`).
        case state
        /// The bytes of a Bloom filter as a message's "have" carries them (`SyncBloomFilter(decoding:)`).
        case bloom
    }

    /// Unique name, `category/...`.
    public var name: String
    /// `sync-messages`, `sync-states`, `bloom` (valid) or `sync-invalid`.
    public var category: String
    public var kind: Kind
    /// `valid` (must decode as `json` says) or `invalid` (must be rejected).
    public var expect: Vector.Expectation
    /// What the vector exercises.
    public var exercises: String
    /// Paths relative to the vectors directory.
    public var file: String
    /// Valid only: the decoded form as JSON.
    public var json: String?
    /// Valid only, when it differs from `file`: what encoding the decoded value writes.
    public var reencoded: String?
    /// Invalid only: the named error category.
    public var error: String?
    /// Invalid only: how this implementation words the rejection (informative; wording is not compared).
    public var message: String?

    init(name: String, category: String, kind: Kind, expect: Vector.Expectation, exercises: String, file: String,
         json: String? = nil, reencoded: String? = nil, error: String? = nil, message: String? = nil) {
        self.name = name
        self.category = category
        self.kind = kind
        self.expect = expect
        self.exercises = exercises
        self.file = file
        self.json = json
        self.reencoded = reencoded
        self.error = error
        self.message = message
    }

    var manifestEntry: JSONValue {
        var members: [ExactString: JSONValue] = [
            "name": .string(name), "category": .string(category), "kind": .string(kind.rawValue),
            "expect": .string(expect.rawValue), "exercises": .string(exercises), "file": .string(file),
        ]
        if let json { members["json"] = .string(json) }
        if let reencoded { members["reencoded"] = .string(reencoded) }
        if let error { members["error"] = .string(error) }
        if let message { members["message"] = .string(message) }
        return .object(members)
    }

    init(entry: JSONValue) throws {
        guard case .object(let m) = entry else { throw VectorError.badManifest("a sync vector is not an object") }
        func string(_ key: String) -> String? {
            if case .string(let s)? = m[ExactString(key)] { return s }
            return nil
        }
        guard let name = string("name"), let category = string("category"), let file = string("file"),
              let kind = string("kind").flatMap(Kind.init(rawValue:)),
              let expect = string("expect").flatMap(Vector.Expectation.init(rawValue:)), expect != .either else {
            throw VectorError.badManifest("sync vector \(string("name") ?? "?") lacks name, category, kind, file or expect")
        }
        self.init(name: name, category: category, kind: kind, expect: expect, exercises: string("exercises") ?? "",
                  file: file, json: string("json"), reencoded: string("reencoded"), error: string("error"),
                  message: string("message"))
        if expect == .valid && json == nil { throw VectorError.badManifest("valid sync vector \(name) has no json") }
    }
}

/// Builds `Vectors/sync`: every message of real sessions between peers of
/// this package, messages assembled byte by byte, persisted sync states,
/// Bloom filters, and inputs every decoder must reject. Documents are made
/// with fixed actors and time-0 commits, the links are reliable and the
/// only randomness is seeded, so generating twice gives the same bytes.
enum SyncVectors {
    static func add(to builder: inout SyncVectorBuilder) throws {
        try addSessions(to: &builder)
        try addConstructedMessages(to: &builder)
        try addInvalidMessages(to: &builder)
        try addStates(to: &builder)
        try addBloomFilters(to: &builder)
        // Grouped by category (sessions add states as they go), in an order the report keeps.
        let grouped = categories.flatMap { category in builder.vectors.filter { $0.category == category } }
        guard grouped.count == builder.vectors.count else { throw VectorError.generator("a sync vector of an unknown category") }
        builder.vectors = grouped
    }

    /// The manifest categories, in manifest order.
    static let categories = ["sync-messages", "sync-states", "bloom", "sync-invalid"]

    // MARK: Fixed inputs

    /// The hash-like input `sha256(UTF-8 of text)`; the vectors use `"hash 0"`, `"hash 1"`, ... and `"probe 0"`, ...
    static func hash(_ text: String) -> ChangeHash {
        ChangeHash(data: Data(Bytes.sha256(Array(text.utf8))))!
    }

    static func hashes(_ prefix: String, _ count: Int) -> [ChangeHash] {
        (0..<count).map { hash("\(prefix) \($0)") }
    }

    /// The flags trailer Rust 0.11 and this package write: `02 02 84` (supports sync reset).
    static let standardTrailer: [UInt8] = [0x02, 0x84]

    /// A message assembled from raw parts, without the package's encoder.
    /// `haves` pairs last-sync hashes with the bytes of the filter field;
    /// `trailer` is the trailer's content, written after its uLEB length.
    static func assemble(type: UInt8 = 0x42, heads: [ChangeHash] = [], need: [ChangeHash] = [],
                         haves: [([ChangeHash], [UInt8])] = [], changes: [[UInt8]] = [],
                         trailer: [UInt8]? = standardTrailer, after: [UInt8] = []) -> [UInt8] {
        var out: [UInt8] = [type]
        out += hashList(heads)
        out += hashList(need)
        out += Bytes.uleb(UInt64(haves.count))
        for (lastSync, bloom) in haves { out += hashList(lastSync) + lengthPrefixed(bloom) }
        out += Bytes.uleb(UInt64(changes.count))
        for change in changes { out += lengthPrefixed(change) }
        if let trailer { out += lengthPrefixed(trailer) }
        return out + after
    }

    static func hashList(_ hashes: [ChangeHash]) -> [UInt8] {
        Bytes.uleb(UInt64(hashes.count)) + hashes.flatMap(\.bytes)
    }

    static func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] { Bytes.uleb(UInt64(bytes.count)) + bytes }

    // MARK: Bloom filters, independently of SyncBloomFilter

    /// The bit positions a hash probes in a filter of `modulo` bits, by the
    /// rule of Rust's `sync/bloom.rs`: x, y, z are the little-endian 32-bit
    /// words of hash bytes 0-3, 4-7 and 8-11, each modulo the bit count; the
    /// probes are x, then `probes - 1` times (x = (x+y) mod m, y = (y+z) mod m).
    static func probePositions(_ hash: ChangeHash, probes: UInt32, modulo: UInt32) -> [UInt32] {
        let bytes = hash.bytes
        func word(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        var x = word(0) % modulo, y = word(4) % modulo
        let z = word(8) % modulo
        var positions = [x]
        var probe: UInt32 = 1
        while probe < probes {
            x = (x &+ y) % modulo
            y = (y &+ z) % modulo
            positions.append(x)
            probe += 1
        }
        return positions
    }

    /// A filter's bytes: uLEB entries, bits per entry and probes, then
    /// ⌈entries × bitsPerEntry / 8⌉ bytes in which bit p is bit p & 7 (least
    /// significant first) of byte p >> 3, probing modulo 8 × that byte count.
    static func bloomBytes(_ hashes: [ChangeHash], bitsPerEntry: UInt32 = 10, probes: UInt32 = 7) -> [UInt8] {
        guard !hashes.isEmpty else { return [] }
        var bits = [UInt8](repeating: 0, count: (hashes.count * Int(bitsPerEntry) + 7) / 8)
        for hash in hashes {
            for p in probePositions(hash, probes: probes, modulo: UInt32(bits.count * 8)) { bits[Int(p >> 3)] |= 1 << (p & 7) }
        }
        return Bytes.uleb(UInt64(hashes.count)) + Bytes.uleb(UInt64(bitsPerEntry)) + Bytes.uleb(UInt64(probes)) + bits
    }

    /// Whether every probed bit of `hash` is set in the filter `bytes` (as built by ``bloomBytes``).
    static func bloomContains(_ bytes: [UInt8], entries: Int, bitsPerEntry: UInt32, probes: UInt32, _ hash: ChangeHash) -> Bool {
        guard entries > 0 else { return false }
        let byteCount = (entries * Int(bitsPerEntry) + 7) / 8
        let bits = Array(bytes.suffix(byteCount))
        return probePositions(hash, probes: probes, modulo: UInt32(byteCount * 8)).allSatisfy { bits[Int($0 >> 3)] & (1 << ($0 & 7)) != 0 }
    }

    // MARK: Sessions

    /// Every message of one or more sessions, in the order sent.
    final class SessionLog {
        var messages: [(from: String, to: String, bytes: [UInt8])] = []
    }

    /// A peer whose generated messages are logged.
    final class RecordingPeer: SyncPeer {
        let inner: SyncPeer
        let label: String
        let other: String
        let log: SessionLog

        init(_ label: String, to other: String, _ inner: SyncPeer, log: SessionLog) {
            self.inner = inner
            self.label = label
            self.other = other
            self.log = log
        }

        var name: String { label }
        func generate() throws -> [UInt8]? {
            let message = try inner.generate()
            if let message { log.messages.append((label, other, message)) }
            return message
        }
        func receive(_ message: [UInt8]) throws { try inner.receive(message) }
        func heads() throws -> [ChangeHash] { try inner.heads() }
        func save() throws -> Data { try inner.save() }
        func put(key: String, value: String) throws { try inner.put(key: key, value: value) }
        func splice(key: String, position: Int, delete: Int, text: String) throws {
            try inner.splice(key: key, position: position, delete: delete, text: text)
        }
        func resetState() throws { try inner.resetState() }
        func encodeState() throws -> [UInt8] { try inner.encodeState() }
        func decodeState(_ bytes: [UInt8]) throws { try inner.decodeState(bytes) }
        func setReadOnly(_ readOnly: Bool) throws { try inner.setReadOnly(readOnly) }
    }

    /// Two peers, a and b, whose messages go to one log.
    struct Session {
        let name: String
        let about: String
        let log = SessionLog()
        let a: RecordingPeer
        let b: RecordingPeer

        init(_ name: String, _ about: String, a: SyncPeer, b: SyncPeer) {
            self.name = name
            self.about = about
            self.a = RecordingPeer("a", to: "b", a, log: log)
            self.b = RecordingPeer("b", to: "a", b, log: log)
        }

        /// Syncs over a reliable link until quiet (`first` speaks first); with `converge`, requires equal documents.
        func sync(_ first: RecordingPeer, _ second: RecordingPeer, converge: Bool = true) throws {
            var rng = SeededGenerator(seed: 1)
            let outcome = try SyncSession.run(first, second, rng: &rng)
            guard outcome.quiet else { throw VectorError.generator("sync session \(name) did not go quiet") }
            if converge, let difference = try SyncComparison.difference(first, second) {
                throw VectorError.generator("sync session \(name) did not converge: \(difference)")
            }
        }

        /// Records every logged message as a vector of `sync-messages/NAME/NN-from-to-to`.
        func record(into builder: inout SyncVectorBuilder, minimumMessages: Int = 2) throws {
            guard log.messages.count >= minimumMessages else {
                throw VectorError.generator("sync session \(name) sent only \(log.messages.count) messages")
            }
            for (index, entry) in log.messages.enumerated() {
                let number = index + 1 < 10 ? "0\(index + 1)" : "\(index + 1)"
                let message = try SyncMessage(decoding: entry.bytes[...])
                try builder.message(
                    name, "\(number)-\(entry.from)-to-\(entry.to)",
                    "\(about); message \(index + 1), \(entry.from) to \(entry.to): \(SyncVectors.summary(message))",
                    entry.bytes)
            }
        }
    }

    /// "V2, 1 head, 0 need, 1 have (bloom of 10 entries), 1 change entry (a whole saved document), flags [...]".
    static func summary(_ message: SyncMessage) -> String {
        func count(_ n: Int, _ noun: String, _ plural: String? = nil) -> String { "\(n) \(n == 1 ? noun : plural ?? noun + "s")" }
        var parts = ["V\(message.version == .v1 ? 1 : 2)", count(message.heads.count, "head"), "\(message.need.count) need"]
        let blooms = message.have.map { "bloom of " + count(Int($0.bloom.entryCount), "entry", "entries") }
        parts.append(count(message.have.count, "have") + (blooms.isEmpty ? "" : " (" + blooms.joined(separator: ", ") + ")"))
        var changes = count(message.changes.count, "change entry", "change entries")
        if !message.changes.isEmpty {
            let kinds = message.changes.map { entry -> String in
                let types = RawChunk.split(entry)?.map(\.type) ?? []
                if types == [0] { return "a whole saved document" }
                if !types.isEmpty && types.allSatisfy({ $0 == 1 }) { return types.count == 1 ? "1 change chunk" : "\(types.count) change chunks" }
                return "\(entry.count) bytes"
            }
            changes += " (" + kinds.joined(separator: "; ") + ")"
        }
        parts.append(changes)
        if let flags = message.flags {
            let names = SyncMessageJSON.flagNames(flags).joined(separator: ", ")
            parts.append("flags trailer 02 02 \(String(0x80 | flags.rawValue, radix: 16)) [\(names)]")
        } else {
            parts.append("no flags trailer")
        }
        return parts.joined(separator: ", ")
    }

    static func addSessions(to builder: inout SyncVectorBuilder) throws {
        // Two empty documents: a says it has nothing; b, seeing a's empty
        // heads, sends its whole saved document (the 14-byte empty one), as Rust does.
        let empty = Session("empty-empty", "two empty documents; b answers a's empty heads with its own saved (empty, 14-byte) document, as Rust does",
                            a: LocalSyncPeer(), b: LocalSyncPeer())
        try empty.sync(empty.a, empty.b)
        try empty.record(into: &builder)

        // One side empty: the first message tells a the other side has
        // nothing and reads V2, so a answers with its whole saved document.
        let whole = Session("whole-document", "a holds 10 changes (actor aa), b is empty and speaks first",
                            a: LocalSyncPeer(document: SyncFixtures.document(changes: 10)), b: LocalSyncPeer())
        try whole.sync(whole.b, whole.a)
        try whole.record(into: &builder)
        try builder.state("one-shared-head", "the state a keeps after the whole-document session (1 shared head)",
                          try whole.a.encodeState())

        // Diverged documents: a few changes each way, as V2 batches.
        let base = SyncFixtures.document(changes: 12)
        let forkA = SyncFixtures.fork(base, actor: "0a", adding: 3, tag: "a")
        let forkB = SyncFixtures.fork(base, actor: "0b", adding: 2, tag: "b")
        let diverged = Session(
            "diverged", "a and b share 12 changes; a adds 3 (actor 0a), b adds 2 (actor 0b); V2 change batches",
            a: LocalSyncPeer(document: forkA), b: LocalSyncPeer(document: forkB))
        try diverged.sync(diverged.a, diverged.b)
        try diverged.record(into: &builder)
        try builder.state("two-shared-heads", "the state a keeps after the diverged session (2 shared heads)",
                          try diverged.a.encodeState())

        // Three concurrent heads on one side.
        let merged = SyncFixtures.document(changes: 10)
        for actor in ["01", "02", "03"] {
            let branch = SyncFixtures.fork(SyncFixtures.document(changes: 10), actor: actor, adding: 1, tag: actor)
            try merged.merge(other: branch)
        }
        let concurrent = Session(
            "concurrent-heads", "a has 10 changes and 3 concurrent ones on top (3 heads), b has the 10",
            a: LocalSyncPeer(document: merged), b: LocalSyncPeer(document: SyncFixtures.document(changes: 10)))
        try concurrent.sync(concurrent.a, concurrent.b)
        try concurrent.record(into: &builder)
        try builder.state("three-shared-heads", "the state a keeps after the concurrent-heads session (3 shared heads)",
                          try concurrent.a.encodeState())

        // A peer without a flags trailer (Rust 0.5): V1 messages, one change chunk per entry, both ways.
        let oldBase = SyncFixtures.document(changes: 8)
        let old = SyncFixtures.fork(oldBase, actor: "05", adding: 3, tag: "old")
        let new = SyncFixtures.fork(oldBase, actor: "11", adding: 2, tag: "new")
        let v1 = Session(
            "v1-peer", "a speaks as Rust 0.5 does (V1 only, no flags trailer) and adds 3 changes to 8 shared ones; b adds 2",
            a: LegacySyncPeer(.rust05, document: old), b: LocalSyncPeer(document: new))
        try v1.sync(v1.a, v1.b)
        try v1.record(into: &builder)

        // A read-only peer: its messages say read_only and it is sent no
        // changes; when it becomes writable its next message says sync_reset.
        let readOnly = Session(
            "read-only", "a (actor abc123, 4 changes) is read-only, b (actor def456, 4 changes) is not; then a becomes writable",
            a: LocalSyncPeer(document: SyncFixtures.document(actor: "abc123", changes: 4, tag: "a")),
            b: LocalSyncPeer(document: SyncFixtures.document(actor: "def456", changes: 4, tag: "b")))
        try readOnly.a.setReadOnly(true)
        try readOnly.sync(readOnly.a, readOnly.b, converge: false)
        try readOnly.a.setReadOnly(false)
        try readOnly.sync(readOnly.a, readOnly.b)
        try readOnly.record(into: &builder)

        // A peer that lost data: b's saved state says it last synced at
        // heads a no longer has, so a asks b to start over (a reset message).
        let full = SyncFixtures.document(changes: 10)
        let remembered = try SyncState(bytes: Data(Bytes.syncState(sharedHeads: full.heads())))
        let reset = Session(
            "reset", "a restarted from an older copy (5 of 10 changes); b holds all 10 and a saved state naming the 10th as shared; b speaks first",
            a: LocalSyncPeer(document: SyncFixtures.document(changes: 5)),
            b: LocalSyncPeer(document: full, state: remembered))
        try reset.sync(reset.b, reset.a)
        try reset.record(into: &builder)
    }

    // MARK: Constructed messages

    static func addConstructedMessages(to builder: inout SyncVectorBuilder) throws {
        let h = hashes("hash", 10)
        let group = "constructed"
        let bloom2 = bloomBytes(Array(h[0..<2]))
        try builder.message(group, "no-trailer", "a V1 message with no flags trailer (Rust 0.5 and older): flags null",
                            assemble(heads: [h[0]], haves: [([], bloom2)], trailer: nil))
        try builder.message(group, "rust06-trailer",
                            "the trailer Rust 0.6 (automerge-swift 0.6.1) writes, the capability list 02 01 02: flags present, none set; re-encodes as 02 02 80",
                            assemble(heads: [h[0]], haves: [([], bloom2)], trailer: [0x01, 0x02]))
        try builder.message(group, "need-entries", "need lists three hashes (sorted), no have",
                            assemble(heads: [h[0]], need: [h[1], h[2], h[3]].sorted()))
        try builder.message(group, "several-haves",
                            "three haves: empty last sync and empty filter; one last-sync hash and a 2-entry filter; two hashes and a 10-entry filter",
                            assemble(type: 0x43, heads: [h[4]], haves: [([], []), ([h[0]], bloom2), ([h[1], h[2]].sorted(), bloomBytes(h))]))
        try builder.message(group, "all-flags", "every flag: sync_reset, read_only, supports_sync_reset (bitfield 87)",
                            assemble(heads: [h[0]], trailer: [0x02, 0x87]))
        try builder.message(group, "unknown-flag-bits",
                            "a one-byte trailer whose bitfield f4 has unknown bits besides supports_sync_reset: they are kept, re-encoded as 02 02 f4",
                            assemble(heads: [h[0]], trailer: [0xF4]))
        try builder.message(group, "two-bitfield-bytes",
                            "a trailer 03 02 81 84: every byte with the high bit set is a bitfield, or-ed together; re-encodes as 02 02 85",
                            assemble(heads: [h[0]], trailer: [0x02, 0x81, 0x84]))
        try builder.message(group, "empty-trailer", "a trailer of length 0: flags present, none set; re-encodes as 02 02 80",
                            assemble(heads: [h[0]], trailer: []))
        try builder.message(group, "bytes-after-trailer", "two bytes after the trailer, ignored (as Rust ignores them); re-encodes without them",
                            assemble(heads: [h[0]], after: [0xFF, 0x00]))
        try builder.message(group, "bloom-trailing-bytes",
                            "a have's filter field with three bytes after the filter's bits, ignored (as Rust ignores them); re-encodes without them",
                            assemble(heads: [h[0]], haves: [([], bloom2 + [0x01, 0x02, 0x03])]))
        try builder.message(group, "zero-entry-bloom-with-parameters",
                            "a filter field 00 0a 07 (0 entries, parameters written): the empty filter; re-encodes as an empty field",
                            assemble(heads: [h[0]], haves: [([], [0x00, 0x0A, 0x07])]))
        try builder.message(group, "unsorted-hashes", "heads and need out of order: kept in the order sent",
                            assemble(heads: [h[3], h[0], h[7]], need: [h[9], h[1]], haves: [([h[5], h[2]], [])]))
        try builder.message(group, "opaque-change-entries",
                            "a V1 message whose change entries are an empty one and 3 bytes that are no chunk: decoding does not look inside them",
                            assemble(changes: [[], [0x01, 0x02, 0x03]]))
        try builder.message(group, "long-fields",
                            "multi-byte uLEB lengths: a 300-byte change entry and a 100-entry filter (128 bytes)",
                            assemble(type: 0x43, haves: [([], bloomBytes(hashes("hash", 100)))],
                                     changes: [(0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }]))
    }

    // MARK: Invalid messages

    static func addInvalidMessages(to builder: inout SyncVectorBuilder) throws {
        let h = hashes("hash", 4)
        let bloom = bloomBytes([h[0]])  // 01 0a 07 + 2 bytes
        // A message with one of everything, cut at every field below.
        let heads = hashList([h[0]]), need = hashList([h[1]])
        let have = Bytes.uleb(1) + hashList([h[2]]) + lengthPrefixed(bloom)
        let change: [UInt8] = [0xAA, 0xBB, 0xCC]
        let changes = Bytes.uleb(1) + lengthPrefixed(change)
        let full = [0x42] + heads + need + have + changes + lengthPrefixed(standardTrailer)
        guard full == assemble(heads: [h[0]], need: [h[1]], haves: [([h[2]], bloom)], changes: [change]) else {
            throw VectorError.generator("the truncation base message is not assembled as expected")
        }
        let afterNeed = [0x42] + heads + need
        let afterHave = afterNeed + have
        let cuts: [(String, [UInt8], String)] = [
            ("truncated-after-type", [0x42], "nothing after the type byte (no heads count)"),
            ("truncated-heads", [0x42, 0x01] + h[0].bytes.prefix(16), "the heads count says 1, 16 of its 32 bytes follow"),
            ("truncated-need-count", [0x42] + heads, "ends after the heads"),
            ("truncated-need", [0x42] + heads + [0x01] + h[1].bytes.prefix(31), "the need count says 1, 31 bytes follow"),
            ("truncated-have-count", afterNeed, "ends after the need list"),
            ("truncated-last-sync", afterNeed + [0x01, 0x01] + h[2].bytes.prefix(20), "in the first have's last-sync hash"),
            ("truncated-bloom-length", afterNeed + [0x01] + hashList([h[2]]), "ends before the first have's filter length"),
            ("truncated-bloom", afterNeed + [0x01] + hashList([h[2]]) + lengthPrefixed(bloom).prefix(3),
             "the filter length says 5, 2 bytes follow"),
            ("truncated-changes-count", afterHave, "ends after the have list (no changes count)"),
            ("truncated-change-length", afterHave + [0x01], "the changes count says 1, then nothing"),
            ("truncated-change", afterHave + [0x01, 0x03, 0xAA, 0xBB], "a change entry of length 3 with 2 bytes"),
            ("truncated-trailer", afterHave + changes + [0x02, 0x02], "the trailer length says 2, 1 byte follows"),
            ("truncated-leb", [0x42, 0x80], "the heads count is a uLEB cut after a byte with the continuation bit"),
            ("bloom-bits-short", afterNeed + [0x01] + hashList([h[2]]) + lengthPrefixed(Array(bloom.prefix(4))) + [0x00] + lengthPrefixed(standardTrailer),
             "a complete filter field 01 0a 07 xx: 1 entry of 10 bits needs 2 bytes of bits, 1 is there"),
        ]
        for (name, bytes, about) in cuts {
            try builder.invalid(.message, name, error: "truncated", "truncated message: \(about)", bytes)
        }
        // The message truncated after its changes is complete (no trailer): check that the cuts above are all a prefix problem.
        _ = try SyncMessage(decoding: (afterHave + changes)[...])

        try builder.invalid(.message, "empty", error: "empty", "zero bytes", [])
        for (type, about) in [(UInt8(0x41), "0x41, one below V1"), (0x44, "0x44, one above V2"), (0x00, "0x00")] {
            try builder.invalid(.message, "type-\(type < 16 ? "0" : "")\(String(type, radix: 16))", error: "unknown-type",
                                "type byte \(about)", [type] + Array(full.dropFirst()))
        }
        try builder.invalid(.message, "document-bytes", error: "unknown-type", "a saved document (magic 85 6f 4a 83) given as a message",
                            [UInt8](SyncFixtures.document(changes: 1).save()))
        try builder.invalid(.message, "sync-state-bytes", error: "truncated",
                            "a persisted sync state (43 01 + 1 hash) given as a message: type 43 is V2, then the need count is missing",
                            [0x43] + hashList([h[0]]))

        let tail = need + [0x00, 0x00] + lengthPrefixed(standardTrailer)
        try builder.invalid(.message, "heads-count-past-end", error: "count-past-end",
                            "heads count 3 with one hash, then a complete need, have and changes (fewer than 96 bytes remain)",
                            [0x42, 0x03] + h[0].bytes + tail)
        try builder.invalid(.message, "need-count-huge", error: "count-past-end",
                            "need count 2^40: a decoder must not reserve room for it",
                            [0x42, 0x00] + Bytes.uleb(1 << 40) + h[1].bytes + [0x00, 0x00])
        try builder.invalid(.message, "have-count-past-end", error: "count-past-end", "have count 5 with one have",
                            afterNeed + [0x05] + Array(have.dropFirst()) + changes)
        try builder.invalid(.message, "changes-count-past-end", error: "count-past-end", "changes count 1000 with one entry",
                            afterHave + Bytes.uleb(1000) + lengthPrefixed(change))
        try builder.invalid(.message, "change-length-past-end", error: "length-past-end",
                            "a change entry of length 200 with 3 bytes (and a trailer) after it",
                            afterHave + [0x01] + Bytes.uleb(200) + change + lengthPrefixed(standardTrailer))
        try builder.invalid(.message, "bloom-length-past-end", error: "length-past-end",
                            "a filter field of length 100 with 5 bytes, the changes and a trailer after it",
                            afterNeed + [0x01] + hashList([h[2]]) + Bytes.uleb(100) + bloom + changes + lengthPrefixed(standardTrailer))

        try builder.invalid(.message, "overlong-heads-count", error: "overlong-leb", "heads count 1 written 81 00",
                            [0x42, 0x81, 0x00] + h[0].bytes + tail)
        try builder.invalid(.message, "overlong-zero-count", error: "overlong-leb", "need count 0 written 80 00",
                            [0x42] + heads + [0x80, 0x00, 0x00, 0x00])
        try builder.invalid(.message, "overlong-change-length", error: "overlong-leb", "change length 3 written 83 00",
                            afterHave + [0x01, 0x83, 0x00] + change)
        try builder.invalid(.message, "overlong-bloom-parameter", error: "overlong-leb",
                            "a filter whose bits-per-entry 10 is written 8a 00 (the filter's own uLEB fields are strict too)",
                            afterNeed + [0x01] + hashList([h[2]]) + lengthPrefixed([0x01, 0x8A, 0x00, 0x07] + bloom.suffix(2)) + [0x00])
        try builder.invalid(.message, "oversized-leb", error: "leb-too-large",
                            "a heads count of 11 uLEB bytes (more than 64 bits)",
                            [0x42] + [UInt8](repeating: 0xFF, count: 10) + [0x01])
        try builder.invalid(.message, "bloom-entries-too-large", error: "leb-too-large",
                            "a filter whose entry count is 2^32, more than the 32 bits it must fit",
                            afterNeed + [0x01, 0x00] + lengthPrefixed(Bytes.uleb(1 << 32) + [0x0A, 0x07]) + [0x00])

        try builder.invalid(.message, "bloom-without-bits", error: "bloom-without-bits",
                            "a filter claiming 5 entries of 0 bits (no bit bytes); Rust 0.11 decodes it and divides by zero when it checks a hash",
                            afterNeed + [0x01, 0x00] + lengthPrefixed([0x05, 0x00, 0x07]) + [0x00])
        try builder.invalid(.message, "too-many-probes", error: "too-many-probes",
                            "a filter asking for 65 probes per hash (the limit is \(SyncBloomFilter.maximumProbeCount); every implementation writes 7)",
                            afterNeed + [0x01, 0x00] + lengthPrefixed([0x01, 0x0A, 0x41] + bloom.suffix(2)) + [0x00])
        try builder.invalid(.message, "probe-count-huge", error: "too-many-probes",
                            "a filter asking for 2^32 - 1 probes per hash (Rust 0.11 decodes it and reserves room for every probe when it checks a hash)",
                            afterNeed + [0x01, 0x00] + lengthPrefixed([0x01, 0x0A] + Bytes.uleb(UInt64(UInt32.max)) + bloom.suffix(2)) + [0x00])
    }

    // MARK: States

    static func addStates(to builder: inout SyncVectorBuilder) throws {
        try builder.state("empty", "a fresh state: 43 00", [UInt8](SyncState().encode()))
        let h = hashes("hash", 2)
        try builder.state("trailing-bytes", "one shared head, then 4 bytes that are ignored (as Rust ignores them); re-encodes without them",
                          [0x43] + hashList([h[0]]) + [0xDE, 0xAD, 0xBE, 0xEF])
        try builder.invalid(.state, "state-empty", error: "empty", "zero bytes", [])
        try builder.invalid(.state, "state-message-type", error: "unknown-type", "type byte 0x42 (a V1 message's), then 0 heads", [0x42, 0x00])
        try builder.invalid(.state, "state-document-bytes", error: "unknown-type", "a saved document given as a state",
                            [UInt8](SyncFixtures.document(changes: 1).save()))
        try builder.invalid(.state, "state-truncated-count", error: "truncated", "the type byte alone", [0x43])
        try builder.invalid(.state, "state-truncated-hash", error: "truncated", "count 1 with 16 bytes of the hash",
                            [0x43, 0x01] + h[0].bytes.prefix(16))
        try builder.invalid(.state, "state-count-past-end", error: "count-past-end", "count 3 with two hashes",
                            [0x43, 0x03] + h[0].bytes + h[1].bytes)
        try builder.invalid(.state, "state-overlong-count", error: "overlong-leb", "count 1 written 81 00",
                            [0x43, 0x81, 0x00] + h[0].bytes)
    }

    // MARK: Bloom filters

    static func addBloomFilters(to builder: inout SyncVectorBuilder) throws {
        for (count, name) in [(0, "no-hashes"), (1, "one-hash"), (2, "two-hashes"), (10, "ten-hashes"), (100, "hundred-hashes")] {
            let members = hashes("hash", count)
            try builder.bloom(name, "a filter built from \(count == 1 ? "1 hash" : "\(count) hashes") (sha256 of \"hash 0\", ...) with the default 10 bits per entry and 7 probes",
                              members: members, bytes: SyncBloomFilter(hashes: members).bytes)
        }
        // Parameters a reader must take from the filter: 5 entries of 13
        // bits is 65 bits, so 9 bytes, and probes go modulo 72, not 65.
        let members = hashes("hash", 5)
        try builder.bloom("custom-parameters",
                          "5 hashes, 13 bits per entry, 5 probes (written by hand): 65 bits make 9 bytes, and probes are taken modulo 72, the bits present",
                          members: members, bytes: bloomBytes(members, bitsPerEntry: 13, probes: 5))

        let one = bloomBytes([hash("hash 0")])
        try builder.invalid(.bloom, "filter-truncated-bits", error: "truncated", "1 entry of 10 bits needs 2 bytes of bits, 1 is there",
                            Array(one.dropLast()))
        try builder.invalid(.bloom, "filter-truncated-parameters", error: "truncated", "entries and bits per entry, no probe count",
                            [0x01, 0x0A])
        try builder.invalid(.bloom, "filter-without-bits", error: "bloom-without-bits", "3 entries of 0 bits: 03 00 07",
                            [0x03, 0x00, 0x07])
        try builder.invalid(.bloom, "filter-too-many-probes", error: "too-many-probes", "1 entry, 10 bits, 100 probes",
                            [0x01, 0x0A, 0x64] + one.suffix(2))
        try builder.invalid(.bloom, "filter-overlong-entries", error: "overlong-leb", "the entry count 1 written 81 00",
                            [0x81, 0x00] + one.dropFirst())
    }
}

/// Collects sync vectors and their files, checking each against this
/// implementation (and the Bloom filters against ``SyncVectors/bloomBytes``)
/// as it goes.
struct SyncVectorBuilder {
    var files: [String: [UInt8]] = [:]
    var vectors: [SyncVector] = []
    private var names: Set<String> = []

    private mutating func claim(_ name: String) throws {
        guard names.insert(name).inserted else { throw VectorError.generator("duplicate sync vector name \(name)") }
    }

    private mutating func write(_ path: String, _ bytes: [UInt8]) { files[path] = bytes }

    private static func jsonText(_ value: JSONValue) -> [UInt8] { Array((value.serialized + "\n").utf8) }

    /// A message that must decode: its JSON is `SyncMessageJSON.describe`, and re-encoding is recorded when it differs.
    mutating func message(_ group: String, _ name: String, _ exercises: String, _ bytes: [UInt8]) throws {
        let fullName = "sync-messages/\(group)/\(name)"
        try claim(fullName)
        let decoded: SyncMessage
        do { decoded = try SyncMessage(decoding: bytes[...]) } catch {
            throw VectorError.generator("sync message \(fullName) does not decode: \(error)")
        }
        let base = "sync/messages/\(group)/\(name)"
        write(base + ".syncmsg", bytes)
        write(base + ".json", Self.jsonText(SyncMessageJSON.describe(decoded)))
        let again = decoded.encoded()
        var reencoded: String?
        if again != bytes {
            reencoded = base + ".reencoded.syncmsg"
            write(reencoded!, again)
            guard (try? SyncMessage(decoding: again[...])) == decoded else {
                throw VectorError.generator("sync message \(fullName) does not survive re-encoding")
            }
        }
        vectors.append(SyncVector(name: fullName, category: "sync-messages", kind: .message, expect: .valid,
                                  exercises: exercises, file: base + ".syncmsg", json: base + ".json", reencoded: reencoded))
    }

    /// A persisted state that must decode to `{"shared_heads": [...]}` (sorted).
    mutating func state(_ name: String, _ exercises: String, _ bytes: [UInt8]) throws {
        let fullName = "sync-states/\(name)"
        try claim(fullName)
        let state: SyncState
        do { state = try SyncState(bytes: Data(bytes)) } catch {
            throw VectorError.generator("sync state \(fullName) does not decode: \(error)")
        }
        let base = "sync/states/\(name)"
        write(base + ".syncstate", bytes)
        write(base + ".json", Self.jsonText(SyncVectorJSON.state(state)))
        let again = [UInt8](state.encode())
        var reencoded: String?
        if again != bytes {
            reencoded = base + ".reencoded.syncstate"
            write(reencoded!, again)
        }
        vectors.append(SyncVector(name: fullName, category: "sync-states", kind: .state, expect: .valid,
                                  exercises: exercises, file: base + ".syncstate", json: base + ".json", reencoded: reencoded))
    }

    /// A filter's bytes and the hashes it was built from, with `contains`
    /// answers for the members, `probe 0` ... `probe 15`, and the first
    /// false positive among `probe N` (searched upward from N = 0).
    mutating func bloom(_ name: String, _ exercises: String, members: [ChangeHash], bytes: [UInt8]) throws {
        let fullName = "bloom/\(name)"
        try claim(fullName)
        let filter: SyncBloomFilter
        do { filter = try SyncBloomFilter(decoding: bytes[...]) } catch {
            throw VectorError.generator("bloom filter \(fullName) does not decode: \(error)")
        }
        guard filter.bytes == bytes else { throw VectorError.generator("bloom filter \(fullName) re-encodes differently") }
        let isDefault = filter.bitsPerEntry == 10 && filter.probeCount == 7
        if isDefault, SyncVectors.bloomBytes(members) != bytes || SyncBloomFilter(hashes: members).bytes != bytes {
            throw VectorError.generator("bloom filter \(fullName): SyncBloomFilter and the probe rule build different bytes")
        }
        // The probe rule, independently, must answer as the filter does.
        func independent(_ hash: ChangeHash) -> Bool {
            SyncVectors.bloomContains(bytes, entries: Int(filter.entryCount), bitsPerEntry: filter.bitsPerEntry,
                                      probes: filter.probeCount, hash)
        }
        var checks: [(hash: ChangeHash, member: Bool)] = members.map { ($0, true) }
        checks += SyncVectors.hashes("probe", 16).map { ($0, false) }
        if !members.isEmpty {
            let set = Set(members)
            var index = 0
            while true {
                let candidate = SyncVectors.hash("probe \(index)")
                if !set.contains(candidate) && filter.contains(candidate) { break }
                index += 1
                guard index < 10_000_000 else { throw VectorError.generator("bloom filter \(fullName): no false positive found") }
            }
            if index >= 16 { checks.append((SyncVectors.hash("probe \(index)"), false)) }
        }
        var entries: [JSONValue] = []
        var falsePositives = 0
        for check in checks {
            let answer = filter.contains(check.hash)
            guard answer == independent(check.hash) else {
                throw VectorError.generator("bloom filter \(fullName): SyncBloomFilter and the probe rule disagree on \(check.hash)")
            }
            if check.member && !answer { throw VectorError.generator("bloom filter \(fullName) misses a member") }
            if !check.member && answer { falsePositives += 1 }
            entries.append(.object(["hash": .string(check.hash.description), "member": .bool(check.member), "contains": .bool(answer)]))
        }
        guard falsePositives > 0 || members.isEmpty else {
            throw VectorError.generator("bloom filter \(fullName) records no false positive")
        }
        let base = "sync/bloom/\(name)"
        write(base + ".bloom", bytes)
        var json: [ExactString: JSONValue] = [
            "entries": .number("\(filter.entryCount)"),
            "hashes": .array(members.map { .string($0.description) }),
            "bytes": .string(Bytes.hex(bytes)),
            "checks": .array(entries),
        ]
        // An empty filter has no bytes, so no parameters on the wire.
        if filter.entryCount != 0 {
            json["bits_per_entry"] = .number("\(filter.bitsPerEntry)")
            json["probes_per_hash"] = .number("\(filter.probeCount)")
        }
        write(base + ".json", Self.jsonText(.object(json)))
        vectors.append(SyncVector(name: fullName, category: "bloom", kind: .bloom, expect: .valid,
                                  exercises: exercises, file: base + ".bloom", json: base + ".json"))
    }

    /// Bytes the decoder of `kind` must reject, with the named error category;
    /// generating checks that this implementation rejects them for that reason.
    mutating func invalid(_ kind: SyncVector.Kind, _ name: String, error: String, _ exercises: String, _ bytes: [UInt8]) throws {
        let fullName = "sync-invalid/\(name)"
        try claim(fullName)
        guard let rejection = SyncVectorCheck.rejection(kind, bytes) else {
            throw VectorError.generator("invalid sync vector \(fullName) decodes")
        }
        let accepted = SyncVectorCheck.categories[error] ?? [error]
        guard accepted.contains(rejection.category) else {
            throw VectorError.generator("invalid sync vector \(fullName) (\(error)) is rejected as \(rejection.category): \(rejection.message)")
        }
        let path = "sync/invalid/\(name).\(SyncVectorCheck.fileExtension(kind))"
        write(path, bytes)
        vectors.append(SyncVector(name: fullName, category: "sync-invalid", kind: kind, expect: .invalid,
                                  exercises: exercises, file: path, error: error, message: rejection.message))
    }
}

/// The JSON forms of states and filters that `Vectors/sync` records.
enum SyncVectorJSON {
    /// `{"shared_heads": [...]}`, sorted.
    static func state(_ state: SyncState) -> JSONValue {
        .object(["shared_heads": .array(state.sharedHeads.sorted().map { .string($0.description) })])
    }
}

/// Decoding and classifying sync vectors with this implementation.
enum SyncVectorCheck {
    static func fileExtension(_ kind: SyncVector.Kind) -> String {
        switch kind {
        case .message: return "syncmsg"
        case .state: return "syncstate"
        case .bloom: return "bloom"
        }
    }

    /// The rejection categories of this implementation that count as each
    /// manifest error category (a message cut inside a hash list is caught
    /// by the check of its count against the bytes that remain).
    static let categories: [String: Set<String>] = [
        "truncated": ["truncated", "length-past-end"],
        "count-past-end": ["length-past-end"],
    ]

    /// Nil when the decoder of `kind` accepts `bytes`; else this implementation's category and wording.
    static func rejection(_ kind: SyncVector.Kind, _ bytes: [UInt8]) -> (category: String, message: String)? {
        do {
            switch kind {
            case .message: _ = try SyncMessage(decoding: bytes[...])
            case .bloom: _ = try SyncBloomFilter(decoding: bytes[...])
            case .state: _ = try SyncState(bytes: Data(bytes))
            }
            return nil
        } catch let error as SyncMessageError {
            return (category(of: error), error.description)
        } catch let error as DecodeSyncStateError {
            switch error.reason {
            case .empty: return ("empty", error.description)
            case .unknownType: return ("unknown-type", error.description)
            case .malformed(let load): return (category(of: load), error.description)
            }
        } catch {
            return ("other", "\(error)")
        }
    }

    static func category(of error: SyncMessageError) -> String {
        switch error {
        case .empty: return "empty"
        case .unknownType: return "unknown-type"
        case .malformed(let load): return category(of: load)
        case .bloomFilterWithoutBits: return "bloom-without-bits"
        case .bloomFilterTooLarge: return "bloom-too-large"
        case .tooManyProbes: return "too-many-probes"
        }
    }

    static func category(of error: LoadError) -> String {
        switch error {
        case .truncated: return "truncated"
        case .lengthPastEnd: return "length-past-end"
        case .overlongLEB128: return "overlong-leb"
        case .leb128TooLarge: return "leb-too-large"
        default: return "other"
        }
    }

    /// Nil when this implementation reads `vector` as recorded, else why not.
    static func check(_ vector: SyncVector, in directory: URL) throws -> String? {
        func read(_ path: String) throws -> [UInt8] { [UInt8](try FileAccess.read(directory.appendingPathComponent(path).path)) }
        let bytes = try read(vector.file)
        if vector.expect == .invalid {
            guard rejection(vector.kind, bytes) == nil else { return nil }
            return "expected rejection (\(vector.error ?? "invalid")), but the \(vector.kind) decoded"
        }
        guard let jsonPath = vector.json else { return "no json recorded" }
        let expected = try JSONParser.parse(try read(jsonPath))
        let expectedBytes = try vector.reencoded.map(read) ?? bytes
        var problems: [String] = []
        func compare(_ actual: JSONValue) {
            if !JSONDiff.equal(expected, actual) {
                problems.append("decoded form differs:\n" + JSONDiff.describe(expected: expected, actual: actual))
            }
        }
        func compareBytes(_ actual: [UInt8], _ what: String) {
            if actual != expectedBytes {
                let at = zip(actual, expectedBytes).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                    ?? min(actual.count, expectedBytes.count)
                problems.append("\(what) differs from \(vector.reencoded ?? vector.file): \(actual.count) vs \(expectedBytes.count) bytes, first difference at byte \(at)")
            }
        }
        switch vector.kind {
        case .message:
            let message: SyncMessage
            do { message = try SyncMessage(decoding: bytes[...]) } catch { return "expected a message, but decoding failed: \(error)" }
            compare(SyncMessageJSON.describe(message))
            compareBytes(message.encoded(), "re-encoding")
        case .state:
            let state: SyncState
            do { state = try SyncState(bytes: Data(bytes)) } catch { return "expected a sync state, but decoding failed: \(error)" }
            compare(SyncVectorJSON.state(state))
            compareBytes([UInt8](state.encode()), "re-encoding")
        case .bloom:
            let filter: SyncBloomFilter
            do { filter = try SyncBloomFilter(decoding: bytes[...]) } catch { return "expected a Bloom filter, but decoding failed: \(error)" }
            problems += checkBloom(filter, bytes: bytes, expected)
            compareBytes(filter.bytes, "re-encoding")
        }
        return problems.isEmpty ? nil : problems.joined(separator: "\n")
    }

    /// The filter's parameters, its bytes as the JSON spells them, the
    /// encoder (for the default parameters) and every `contains` answer.
    static func checkBloom(_ filter: SyncBloomFilter, bytes: [UInt8], _ json: JSONValue) -> [String] {
        guard case .object(let m) = json else { return ["the json is not an object"] }
        var problems: [String] = []
        func number(_ key: String) -> UInt32? { if case .number(let n)? = m[ExactString(key)] { return UInt32(n) } else { return nil } }
        if number("entries") != filter.entryCount {
            problems.append("entries: decoded \(filter.entryCount), json \(m["entries"]?.serialized ?? "none")")
        } else if filter.entryCount != 0,
                  number("bits_per_entry") != filter.bitsPerEntry || number("probes_per_hash") != filter.probeCount {
            problems.append("parameters: decoded \(filter.bitsPerEntry) bits per entry and \(filter.probeCount) probes, json \(m["bits_per_entry"]?.serialized ?? "none") and \(m["probes_per_hash"]?.serialized ?? "none")")
        }
        if case .string(let hex)? = m["bytes"], Bytes.fromHex(Substring(hex)) != bytes {
            problems.append("the json's bytes are not the file's")
        }
        var members: [ChangeHash] = []
        if case .array(let list)? = m["hashes"] {
            members = list.compactMap { if case .string(let s) = $0 { return ChangeHash(hexString: s) } else { return nil } }
        }
        // The encoder: every implementation builds filters with 10 bits per entry and 7 probes.
        if members.isEmpty || (number("bits_per_entry") == 10 && number("probes_per_hash") == 7) {
            let built = SyncBloomFilter(hashes: members).bytes
            if built != bytes { problems.append("a filter built from the \(members.count) hashes has other bytes: \(Bytes.hex(built).prefix(80))") }
        }
        if case .array(let checks)? = m["checks"] {
            for check in checks {
                guard case .object(let c) = check, case .string(let hex)? = c["hash"], let hash = ChangeHash(hexString: hex),
                      case .bool(let expected)? = c["contains"] else {
                    problems.append("a malformed check: \(check.serialized)")
                    continue
                }
                if filter.contains(hash) != expected {
                    problems.append("contains(\(hex)) is \(!expected), expected \(expected)")
                }
            }
        }
        return problems
    }
}

import AutomergeConformance
import Foundation
import Testing
@_spi(Conformance) @testable import Automerge

/// A received change is applied only in the form a document chunk rebuilds
/// for it, byte for byte: in any other form the change would get another
/// hash once saved in a document, and the save would fail its own heads
/// check on load (Rust accepts such changes and writes such saves).
@Suite("Received changes in canonical form")
struct CanonicalChangeTests {
    static let (aa, bb, cc) = (ActorId(hexString: "aa")!, ActorId(hexString: "bb")!, ActorId(hexString: "cc")!)

    /// A document whose key "k" holds two concurrent puts, 1@aa and 1@bb,
    /// which are its two heads.
    static func conflicted() throws -> Document {
        let left = Document(), right = Document()
        left.actor = aa
        right.actor = bb
        try left.put(obj: .ROOT, key: "k", value: .Int(1))
        left.commitReproducibly()
        try right.put(obj: .ROOT, key: "k", value: .Int(2))
        right.commitReproducibly()
        try left.merge(other: right)
        return left
    }

    /// A change by cc on top of both heads: one op on "k" whose
    /// predecessors are both puts. Actors cc, then `others`; `predecessors`
    /// and `dependencies` as given, in the order given.
    static func change(
        on doc: Document, others: [ActorId] = [aa, bb], predecessors: [StoredOpId]? = nil,
        dependencies: [ChangeHash]? = nil, action: UInt64 = 1, value: Primitive = .int(3)
    ) -> Data {
        let op = StoredOp(
            object: nil, key: .map("k"), insert: false, action: action, value: value,
            predecessors: StoredOpIdList(predecessors ?? [StoredOpId(counter: 1, actor: 1), StoredOpId(counter: 1, actor: 2)]),
            id: nil, successors: [], expand: false, markName: nil)
        let stored = StoredChange(
            dependencies: dependencies ?? doc.heads().sorted(), actors: [cc] + others, sequence: 1, startOp: 2,
            time: 0, message: nil, ops: [op], extraBytes: [])
        return Data(ChangeChunk.encode(stored).bytes)
    }

    static func expectRefused(_ bytes: Data, by doc: Document) {
        let before = doc.save(compress: false)
        #expect(throws: AutomergeError.self) { try doc.applyEncodedChanges(encoded: bytes) }
        #expect(doc.save(compress: false) == before, "a refused change changes nothing")
    }

    @Test("the canonical form applies, and its document saves and loads")
    func canonicalApplies() throws {
        let doc = try Self.conflicted()
        try doc.applyEncodedChanges(encoded: Self.change(on: doc))
        #expect(try doc.get(obj: .ROOT, key: "k") == .Scalar(.Int(3)))
        #expect(try Document(doc.save()).heads() == doc.heads())
    }

    @Test("dependencies out of order are refused")
    func dependenciesOutOfOrder() throws {
        let doc = try Self.conflicted()
        Self.expectRefused(Self.change(on: doc, dependencies: doc.heads().sorted().reversed()), by: doc)
    }

    @Test("predecessors out of op id order are refused")
    func predecessorsOutOfOrder() throws {
        let doc = try Self.conflicted()
        let reversed = [StoredOpId(counter: 1, actor: 2), StoredOpId(counter: 1, actor: 1)]
        Self.expectRefused(Self.change(on: doc, predecessors: reversed), by: doc)
    }

    @Test("other actors out of byte order are refused")
    func actorsOutOfOrder() throws {
        let doc = try Self.conflicted()
        // The same op ids, with the actor table listing bb before aa.
        let swapped = [StoredOpId(counter: 1, actor: 2), StoredOpId(counter: 1, actor: 1)]
        Self.expectRefused(Self.change(on: doc, others: [Self.bb, Self.aa], predecessors: swapped), by: doc)
    }

    @Test("a delete is written without a value")
    func deleteWithValue() throws {
        let doc = try Self.conflicted()
        Self.expectRefused(Self.change(on: doc, action: 3, value: .int(5)), by: doc)
        try doc.applyEncodedChanges(encoded: Self.change(on: doc, action: 3, value: .null))
        #expect(try doc.get(obj: .ROOT, key: "k") == nil)
    }

    /// The check keeps its buffers from one change to the next: changes of
    /// every size and shape in one call must each be judged on their own.
    @Test("a batch of varied changes applies whole, and a bad one among them refuses the batch")
    func batches() throws {
        let source = Document()
        source.actor = ActorId(hexString: "dd")!
        let text = try source.putObject(obj: .ROOT, key: "text", ty: .Text)
        let list = try source.putObject(obj: .ROOT, key: "list", ty: .List)
        source.commitReproducibly(message: "objects")
        var generator = SystemRandomNumberGenerator()
        for round in 0..<100 {
            for _ in 0..<Int.random(in: 1...(round % 7 == 0 ? 120 : 4), using: &generator) {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: try source.put(obj: .ROOT, key: "key\(Int.random(in: 0..<20, using: &generator))", value: .Int(Int64(round)))
                case 1: try source.spliceText(obj: text, start: 0, delete: 0, value: "héllo \(round) ")
                case 2: try source.insert(obj: list, index: 0, value: .String(String(repeating: "x", count: round)))
                default:
                    try source.put(obj: .ROOT, key: "gone", value: .Counter(1))
                    try source.delete(obj: .ROOT, key: "gone")
                }
            }
            source.commitReproducibly(message: round % 3 == 0 ? "round \(round)" : nil)
        }
        let changes = try source.encodeChangesSince(heads: [])
        let target = Document()
        try target.applyEncodedChanges(encoded: changes)
        #expect(target.heads() == source.heads())
        #expect(try target.text(obj: text) == source.text(obj: text))

        // Next to the conflicted document's own cc change, well formed or not.
        let doc = try Self.conflicted()
        Self.expectRefused(changes + Self.change(on: doc, dependencies: doc.heads().sorted().reversed()), by: doc)
        try doc.applyEncodedChanges(encoded: changes + Self.change(on: doc))
        #expect(try doc.get(obj: .ROOT, key: "k") == .Scalar(.Int(3)))
        #expect(try doc.text(obj: text) == source.text(obj: text))
    }

    /// In a large batch the canonical form is proven on another core while
    /// the other checks go on; the change refused must still be the first
    /// that checking in order refuses.
    @Test("in a large batch, the first change refused is the one reported, whichever check refuses it")
    func firstRefusalInLargeBatch() throws {
        /// `count` one-put changes by `actor`, over `keys` keys named `prefix` and a number.
        func puts(by actor: String, count: Int, keys: Int, prefix: String) throws -> Data {
            let source = Document()
            source.actor = ActorId(hexString: actor)!
            for round in 0..<count {
                try source.put(obj: .ROOT, key: "\(prefix) \(round % keys)", value: .Int(Int64(round)))
                source.commitReproducibly()
            }
            return try source.encodeChangesSince(heads: [])
        }
        let good = try puts(by: "dd", count: 100, keys: 9, prefix: "key")
        let doc = try Self.conflicted()
        let notCanonical = Self.change(on: doc, dependencies: doc.heads().sorted().reversed())
        // By a fresh actor, an op on an object nobody made.
        let orphanOp = StoredOp(
            object: StoredOpId(counter: 99, actor: 0), key: .map("k"), insert: false, action: 1, value: .int(1),
            predecessors: StoredOpIdList([]), id: nil, successors: [], expand: false, markName: nil)
        let missingObject = Data(ChangeChunk.encode(StoredChange(
            dependencies: [], actors: [ActorId(hexString: "ee")!], sequence: 1, startOp: 1,
            time: 0, message: nil, ops: [orphanOp], extraBytes: [])).bytes)
        func refusal(_ bytes: Data) -> String {
            do {
                try doc.applyEncodedChanges(encoded: bytes)
                return "applied"
            } catch {
                return "\(error)"
            }
        }
        // Changes by an actor the batch brings in late, proven with the actor table as it grew.
        let lateChanges = try puts(by: "de", count: 40, keys: 5, prefix: "late")
        #expect(refusal(good + notCanonical + missingObject).contains("canonical form"))
        #expect(refusal(good + missingObject + notCanonical).contains("missing object"))
        #expect(refusal(notCanonical + good + missingObject).contains("canonical form"))
        #expect(refusal(good + lateChanges + notCanonical).contains("canonical form"))
        #expect(try doc.get(obj: .ROOT, key: "key 0") == nil, "nothing of a refused batch applies")
        let fresh = Document()
        try fresh.applyEncodedChanges(encoded: good + lateChanges)
        #expect(try fresh.get(obj: .ROOT, key: "late 4") == .Scalar(.Int(39)))
        #expect(fresh.getHistory().count == 140)
    }

    @Test("a compressed change chunk is judged by the change it holds")
    func compressedChunk() throws {
        let source = Document()
        source.actor = Self.aa
        for index in 0..<40 { try source.put(obj: .ROOT, key: "key \(index)", value: .String("value \(index)")) }
        source.commitReproducibly()
        let change = try #require(try StorageBridge.changes(in: [UInt8](source.encodeChangesSince(heads: []))).first)
        let compressed = EncodedChange(bytes: change.bytes, hash: change.hash).storageBytes
        #expect(compressed[8] == ChunkType.compressedChange.rawValue)
        let target = Document()
        try target.applyEncodedChanges(encoded: Data(compressed))
        #expect(target.heads() == source.heads())
    }
}

import Foundation
import Testing
@_spi(Storage) @testable import Automerge

/// `Document(ownBytes:actor:)`, the datastore's load of bytes this package
/// wrote: the same document as any load, less the canonical-form check of
/// change chunks, and every other check kept.
@Suite("Loading own bytes")
struct OwnBytesLoadTests {
    /// A document kept as a datastore keeps it: its first change, then one
    /// change chunk per later commit.
    static func storedChunks() throws -> Data {
        let document = Document()
        document.actor = ActorId(hexString: "aa01")!
        try document.put(obj: .ROOT, key: "title", value: .String("Task 1"))
        try document.put(obj: .ROOT, key: "completed", value: .Boolean(false))
        let text = try document.putObject(obj: .ROOT, key: "notes", ty: .Text)
        try document.spliceText(obj: text, start: 0, delete: 0, value: "first")
        document.commitReproducibly()
        var bytes = try document.encodeChangesSince(heads: [])
        for round in 0..<3 {
            let before = document.heads()
            try document.put(obj: .ROOT, key: "completed", value: .Boolean(round % 2 == 0))
            try document.spliceText(obj: text, start: 0, delete: 1, value: "F")
            document.commitReproducibly()
            bytes.append(try document.encodeChangesSince(heads: before))
        }
        return bytes
    }

    @Test("own bytes load as the same document, writing as the given actor")
    func sameDocument() throws {
        let bytes = try Self.storedChunks()
        let actor = ActorId(hexString: "bb02")!
        let reference = try Document(bytes)
        let loaded = try Document(ownBytes: bytes, actor: actor)
        #expect(loaded.heads() == reference.heads())
        #expect(loaded.save() == reference.save())
        #expect(loaded.actor == actor)
        try loaded.put(obj: .ROOT, key: "title", value: .String("Task 2"))
        loaded.commitReproducibly()
        let newest = try #require(loaded.heads().first)
        #expect(loaded.heads().count == 1)
        #expect(loaded.change(hash: newest)?.actorId == actor)
    }

    @Test("damaged own bytes still fail with a typed error", arguments: [0, 9, 50, 120, 200])
    func damagedBytes(offset: Int) throws {
        var bytes = try Self.storedChunks()
        try #require(offset < bytes.count)
        bytes[offset] ^= 0x40
        #expect(throws: AutomergeError.self) { try Document(ownBytes: bytes, actor: ActorId()) }
    }

    /// The one check skipped: a change chunk whose action column holds a
    /// one-value repeat run (a canonical encoder writes a literal) is refused
    /// from anyone else, and accepted from a datastore's own bytes.
    @Test("a non-canonical change chunk is refused from elsewhere and loads from own bytes")
    func nonCanonicalChange() throws {
        let document = Document()
        document.actor = ActorId(hexString: "cc03")!
        try document.put(obj: .ROOT, key: "a", value: .Int(1))
        document.commitReproducibly()
        let change = try #require(try StorageBridge.changes(in: [UInt8](try document.encodeChangesSince(heads: []))).first)
        var columns = OpColumns.encode(change.stored.ops, kind: .change)
        let action = try #require(columns.firstIndex { $0.0 == .action })
        #expect(columns[action].1 == [0x7F, 0x01], "one put: a literal run of one")
        columns[action].1 = [0x01, 0x01]
        let nonCanonical = Data(ChangeChunk.encode(change.stored.header, opColumns: columns).bytes)

        #expect(throws: AutomergeError.self) { try Document(nonCanonical) }
        let loaded = try Document(ownBytes: nonCanonical, actor: ActorId())
        #expect(try loaded.get(obj: .ROOT, key: "a") == .Scalar(.Int(1)))
    }
}

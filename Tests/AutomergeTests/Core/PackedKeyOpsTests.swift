import Foundation
import Testing
@_spi(Conformance) @testable import Automerge

/// A loaded document keeps the ops of a map key it overwrote a few times
/// as bytes (``PackedKeyOps``). Reads must see exactly those ops, writes to
/// such a key must behave as on the document before the save, and a save
/// must write the same bytes.
@Suite("Packed key ops")
struct PackedKeyOpsTests {
    /// A map whose keys are overwritten, deleted, made counters and objects
    /// by two actors, some concurrently; and `original`'s history.
    static func editedMap() throws -> (original: Document, other: Document, map: ObjId) {
        let original = Document()
        let map = try original.putObject(obj: .ROOT, key: "map", ty: .Map)
        original.commitWith(message: nil, timestamp: Date(timeIntervalSince1970: 0))
        let other = original.fork()
        var random = StorageTestRandom(seed: 5)
        for round in 0..<300 {
            let key = "k\(random.next() % 40)"
            let document = round % 3 == 0 ? other : original
            switch random.next() % 8 {
            case 0: try document.delete(obj: map, key: key)
            case 1: try document.put(obj: map, key: "counter\(round % 4)", value: .Counter(Int64(round)))
            case 2: _ = try document.putObject(obj: map, key: key, ty: .List)
            case 3: try document.put(obj: map, key: key, value: .String("a longer string value \(round) 😀"))
            default: try document.put(obj: map, key: key, value: .Int(Int64(round)))
            }
            if round % 25 == 24 {
                try original.merge(other: other)
                try other.merge(other: original)
            }
        }
        try original.merge(other: other)
        return (original, other, map)
    }

    static func packedKeys(_ document: Document) -> Int {
        document.locked { state in
            state.ops.maps.reduce(0) { $0 + $1.packedKeyCount }
        }
    }

    @Test("a loaded map packs its overwritten keys, reads as before and saves the same bytes")
    func loadedKeysReadAndSaveAsBefore() throws {
        let (original, _, map) = try Self.editedMap()
        let loaded = try Document(original.save())
        #expect(Self.packedKeys(loaded) > 10, "keys overwritten a few times are packed")
        for key in try original.keys(obj: map) {
            #expect(try loaded.getAll(obj: map, key: key) == original.getAll(obj: map, key: key), "key \(key)")
        }
        #expect(loaded.save(compress: false) == original.save(compress: false))
        try loaded.checkInvariants()
    }

    @Test("writes to packed keys (put, delete, increment, a merge) act as on the document before the save")
    func writesToPackedKeys() throws {
        let (original, other, map) = try Self.editedMap()
        let loaded = try Document(original.save())
        loaded.actor = original.actor
        for document in [original, loaded] {
            for index in 0..<40 where index % 3 != 2 {
                try document.put(obj: map, key: "k\(index)", value: .Uint(UInt64(index)))
            }
            for index in 0..<40 where index % 3 == 2 { try document.delete(obj: map, key: "k\(index)") }
            for counter in 0..<4 where try document.get(obj: map, key: "counter\(counter)") != nil {
                try document.increment(obj: map, key: "counter\(counter)", by: 3)
            }
            try other.put(obj: map, key: "k0", value: .String("concurrent"))
            try document.merge(other: other)
        }
        for key in try original.keys(obj: map) {
            #expect(try loaded.getAll(obj: map, key: key) == original.getAll(obj: map, key: key), "key \(key)")
        }
        #expect(loaded.heads() == original.heads())
        #expect(loaded.save(compress: false) == original.save(compress: false))
        try loaded.checkInvariants()
    }
}

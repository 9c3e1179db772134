import Foundation
import Testing
@testable import Automerge

@Suite("Maps")
struct MapTests {

    // MARK: Single peer

    @Test func putThenGetReturnsTheValueForEveryScalarType() throws {
        let doc = Document.peer(0x01)
        let values: [String: ScalarValue] = [
            "bytes": .Bytes(Data([0, 1, 255])), "string": .String("héllo"), "uint": .Uint(UInt64.max),
            "int": .Int(-42), "f64": .F64(1.5), "counter": .Counter(7),
            "timestamp": .Timestamp(Date(timeIntervalSince1970: 1_700_000_000.123)),
            "bool": .Boolean(true), "null": .Null,
        ]
        for (key, value) in values { try doc.put(obj: .ROOT, key: key, value: value) }
        for (key, value) in values {
            #expect(try doc.get(obj: .ROOT, key: key) == .Scalar(value), "key \(key)")
        }
        #expect(doc.length(obj: .ROOT) == UInt64(values.count))
    }

    @Test func getOfAnAbsentKeyIsNil() throws {
        let doc = Document.peer(0x01)
        #expect(try doc.get(obj: .ROOT, key: "missing") == nil)
        #expect(try doc.getAll(obj: .ROOT, key: "missing").isEmpty)
    }

    @Test func aLaterPutOverwritesTheValueWithoutAConflict() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "k", value: .Int(1))
        try doc.put(obj: .ROOT, key: "k", value: .Int(2))
        #expect(try doc.get(obj: .ROOT, key: "k") == .Scalar(.Int(2)))
        #expect(try doc.getAll(obj: .ROOT, key: "k") == [.Scalar(.Int(2))])
    }

    @Test func deleteRemovesTheKey() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "a", value: .Int(1))
        try doc.put(obj: .ROOT, key: "b", value: .Int(2))
        try doc.delete(obj: .ROOT, key: "a")
        #expect(try doc.get(obj: .ROOT, key: "a") == nil)
        #expect(doc.keys(obj: .ROOT) == ["b"])
        #expect(doc.length(obj: .ROOT) == 1)
    }

    @Test func keysAreSortedByTheirUTF8Bytes() throws {
        let doc = Document.peer(0x01)
        // Byte order, not Swift's String order: "B" (0x42) < "a" (0x61) < "é" (0xC3 0xA9) < "😀" (0xF0 ...).
        for key in ["😀", "é", "a", "B", "ab", ""] { try doc.put(obj: .ROOT, key: key, value: .Null) }
        #expect(doc.keys(obj: .ROOT) == ["", "B", "a", "ab", "é", "😀"])
        #expect(try doc.mapEntries(obj: .ROOT).map(\.0) == ["", "B", "a", "ab", "é", "😀"])
    }

    @Test func canonicallyEquivalentKeysAreDistinct() throws {
        // Automerge compares keys by bytes; Swift's String == would merge these two.
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "\u{E9}", value: .Int(1))
        try doc.put(obj: .ROOT, key: "e\u{301}", value: .Int(2))
        #expect(doc.length(obj: .ROOT) == 2)
        #expect(try doc.get(obj: .ROOT, key: "\u{E9}") == .Scalar(.Int(1)))
        #expect(try doc.get(obj: .ROOT, key: "e\u{301}") == .Scalar(.Int(2)))
    }

    @Test func valuesAndMapEntriesFollowKeyOrder() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "b", value: .Int(2))
        try doc.put(obj: .ROOT, key: "a", value: .Int(1))
        #expect(try doc.values(obj: .ROOT) == [.Scalar(.Int(1)), .Scalar(.Int(2))])
        let entries = try doc.mapEntries(obj: .ROOT)
        #expect(entries.map(\.0) == ["a", "b"])
        #expect(entries.map(\.1) == [.Scalar(.Int(1)), .Scalar(.Int(2))])
    }

    @Test func putObjectCreatesAnEmptyNestedObjectOfTheRequestedType() throws {
        let doc = Document.peer(0x01)
        let map = try doc.putObject(obj: .ROOT, key: "map", ty: .Map)
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        #expect(try doc.get(obj: .ROOT, key: "map") == .Object(map, .Map))
        #expect(try doc.get(obj: .ROOT, key: "list") == .Object(list, .List))
        #expect(try doc.get(obj: .ROOT, key: "text") == .Object(text, .Text))
        #expect(doc.objectType(obj: map) == .Map)
        #expect(doc.length(obj: map) == 0 && doc.length(obj: list) == 0 && doc.length(obj: text) == 0)
        // The object id is the make op's id.
        #expect(map.description == "1@01" && list.description == "2@01" && text.description == "3@01")

        let inner = try doc.putObject(obj: map, key: "inner", ty: .Map)
        try doc.put(obj: inner, key: "deep", value: .String("yes"))
        #expect(try doc.path(obj: inner) == [PathElement(obj: .ROOT, prop: .Key("map")), PathElement(obj: map, prop: .Key("inner"))])
        #expect(try doc.lookupPath(path: ".map.inner") == inner)
        #expect(try doc.get(obj: inner, key: "deep") == .Scalar(.String("yes")))
    }

    @Test func overwritingAnObjectWithAScalarHidesTheObject() throws {
        let doc = Document.peer(0x01)
        let map = try doc.putObject(obj: .ROOT, key: "m", ty: .Map)
        try doc.put(obj: map, key: "x", value: .Int(1))
        try doc.put(obj: .ROOT, key: "m", value: .String("scalar"))
        #expect(try doc.get(obj: .ROOT, key: "m") == .Scalar(.String("scalar")))
        #expect(try doc.lookupPath(path: ".m") == nil)
    }

    // MARK: Concurrent edits

    @Test func concurrentPutsPickTheHigherOpIdOnEveryPeerAndKeepBothValues() throws {
        let alice = Document.peer(0x01)
        try alice.put(obj: .ROOT, key: "other", value: .Int(0))  // op 1@01
        let bob = alice.forkPeer(0x02)
        try alice.put(obj: .ROOT, key: "k", value: .String("alice"))  // 2@01
        try bob.put(obj: .ROOT, key: "k", value: .String("bob"))  // 2@02: same counter, higher actor
        try alice.merge(peer: bob)
        try bob.merge(peer: alice)
        for doc in [alice, bob] {
            #expect(try doc.get(obj: .ROOT, key: "k") == .Scalar(.String("bob")))
            #expect(try doc.getAll(obj: .ROOT, key: "k") == [.Scalar(.String("alice")), .Scalar(.String("bob"))])
        }
        #expect(describe(alice, .ROOT) == describe(bob, .ROOT))
    }

    @Test func theCounterDecidesBeforeTheActor() throws {
        let alice = Document.peer(0x01)
        let bob = alice.forkPeer(0x02)
        try alice.put(obj: .ROOT, key: "pad", value: .Int(0))  // 1@01
        try alice.put(obj: .ROOT, key: "k", value: .String("alice"))  // 2@01
        try bob.put(obj: .ROOT, key: "k", value: .String("bob"))  // 1@02
        try bob.merge(peer: alice)
        try alice.merge(peer: bob)
        for doc in [alice, bob] {
            #expect(try doc.get(obj: .ROOT, key: "k") == .Scalar(.String("alice")))
            #expect(try doc.getAll(obj: .ROOT, key: "k").count == 2)
        }
    }

    @Test func threeConcurrentPutsConvergeWhateverTheMergeOrder() throws {
        let base = Document.peer(0x01)
        try base.put(obj: .ROOT, key: "k", value: .Int(0))
        let peers = [base.forkPeer(0x03), base.forkPeer(0x01), base.forkPeer(0x02)]
        for (i, peer) in peers.enumerated() { try peer.put(obj: .ROOT, key: "k", value: .Int(Int64(i + 1))) }
        // Merge in a different order on each peer.
        try peers[0].merge(peer: peers[1]); try peers[0].merge(peer: peers[2])
        try peers[1].merge(peer: peers[2]); try peers[1].merge(peer: peers[0])
        try peers[2].merge(peer: peers[0]); try peers[2].merge(peer: peers[1])
        for peer in peers {
            #expect(try peer.get(obj: .ROOT, key: "k") == .Scalar(.Int(1)), "actor 03 wins")
            #expect(try peer.getAll(obj: .ROOT, key: "k") == [.Scalar(.Int(1)), .Scalar(.Int(2)), .Scalar(.Int(3))])
        }
    }

    @Test func deletingAConflictedKeyRemovesEveryValue() throws {
        let alice = Document.peer(0x01)
        let bob = alice.forkPeer(0x02)
        try alice.put(obj: .ROOT, key: "k", value: .Int(1))
        try bob.put(obj: .ROOT, key: "k", value: .Int(2))
        try alice.merge(peer: bob)
        try alice.delete(obj: .ROOT, key: "k")
        // One delete naming both conflicting ops.
        #expect(alice.pendingOps == ["2@01 delete _root.\"k\" pred [1@01,1@02]"])
        try bob.merge(peer: alice)
        for doc in [alice, bob] {
            #expect(try doc.get(obj: .ROOT, key: "k") == nil)
            #expect(try doc.getAll(obj: .ROOT, key: "k").isEmpty)
            #expect(doc.keys(obj: .ROOT).isEmpty)
        }
    }

    @Test func aPutConcurrentWithADeleteSurvives() throws {
        let alice = Document.peer(0x01)
        try alice.put(obj: .ROOT, key: "k", value: .Int(1))
        let bob = alice.forkPeer(0x02)
        try alice.delete(obj: .ROOT, key: "k")
        try bob.put(obj: .ROOT, key: "k", value: .Int(2))
        try mergeAll([alice, bob])
        for doc in [alice, bob] {
            #expect(try doc.get(obj: .ROOT, key: "k") == .Scalar(.Int(2)))
            #expect(try doc.getAll(obj: .ROOT, key: "k") == [.Scalar(.Int(2))])
        }
    }

    @Test func puttingTheConflictWinnerAgainResolvesTheConflictWithADeleteOfTheLosers() throws {
        let alice = Document.peer(0x01)
        let bob = alice.forkPeer(0x02)
        try alice.put(obj: .ROOT, key: "k", value: .Int(1))  // 1@01
        try bob.put(obj: .ROOT, key: "k", value: .Int(2))  // 1@02 wins
        try alice.merge(peer: bob)
        try alice.put(obj: .ROOT, key: "k", value: .Int(2))
        #expect(alice.pendingOps == ["2@01 delete _root.\"k\" pred [1@01]"])
        #expect(try alice.getAll(obj: .ROOT, key: "k") == [.Scalar(.Int(2))])
        try bob.merge(peer: alice)
        #expect(try bob.getAll(obj: .ROOT, key: "k") == [.Scalar(.Int(2))])
    }

    @Test func puttingTheConflictLoserAgainOverwritesBoth() throws {
        let alice = Document.peer(0x01)
        let bob = alice.forkPeer(0x02)
        try alice.put(obj: .ROOT, key: "k", value: .Int(1))
        try bob.put(obj: .ROOT, key: "k", value: .Int(2))
        try alice.merge(peer: bob)
        try alice.put(obj: .ROOT, key: "k", value: .Int(1))
        #expect(alice.pendingOps == ["2@01 set _root.\"k\" pred [1@01,1@02] value int(1)"])
        #expect(try alice.getAll(obj: .ROOT, key: "k") == [.Scalar(.Int(1))])
    }

    @Test func concurrentlyCreatedObjectsUnderOneKeyConflictAndKeepTheirContents() throws {
        let alice = Document.peer(0x01)
        let bob = alice.forkPeer(0x02)
        let aliceMap = try alice.putObject(obj: .ROOT, key: "config", ty: .Map)
        try alice.put(obj: aliceMap, key: "from", value: .String("alice"))
        let bobMap = try bob.putObject(obj: .ROOT, key: "config", ty: .Map)
        try bob.put(obj: bobMap, key: "from", value: .String("bob"))
        try mergeAll([alice, bob])
        for doc in [alice, bob] {
            #expect(try doc.get(obj: .ROOT, key: "config") == .Object(bobMap, .Map))
            #expect(try doc.getAll(obj: .ROOT, key: "config") == [.Object(aliceMap, .Map), .Object(bobMap, .Map)])
            // The losing object still exists and is addressable.
            #expect(try doc.get(obj: aliceMap, key: "from") == .Scalar(.String("alice")))
        }
    }

    @Test func concurrentPutsToDifferentKeysBothApply() throws {
        let alice = Document.peer(0x01)
        let bob = alice.forkPeer(0x02)
        try alice.put(obj: .ROOT, key: "a", value: .Int(1))
        try bob.put(obj: .ROOT, key: "b", value: .Int(2))
        try mergeAll([alice, bob])
        for doc in [alice, bob] {
            #expect(doc.keys(obj: .ROOT) == ["a", "b"])
            #expect(try doc.getAll(obj: .ROOT, key: "a").count == 1)
        }
        #expect(alice.heads() == bob.heads())
    }
}

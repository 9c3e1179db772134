import Foundation
import Testing
@testable import Automerge

private func strings(_ doc: Document, _ list: ObjId) throws -> [String] {
    try doc.values(obj: list).map { value in
        guard case .Scalar(.String(let s)) = value else { return "<\(value)>" }
        return s
    }
}

/// A document with a list at `"list"` holding `items`, committed.
private func listDocument(_ items: [String], actor byte: UInt8 = 0x01) throws -> (Document, ObjId) {
    let doc = Document.peer(byte)
    let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
    for (i, item) in items.enumerated() { try doc.insert(obj: list, index: UInt64(i), value: .String(item)) }
    doc.commitChange()
    return (doc, list)
}

@Suite("Lists")
struct ListTests {

    // MARK: Single peer

    @Test func insertPlacesTheValueBeforeTheElementAtTheIndex() throws {
        let (doc, list) = try listDocument(["a", "c"])
        try doc.insert(obj: list, index: 1, value: .String("b"))
        try doc.insert(obj: list, index: 0, value: .String("start"))
        try doc.insert(obj: list, index: 4, value: .String("end"))
        #expect(try strings(doc, list) == ["start", "a", "b", "c", "end"])
        #expect(doc.length(obj: list) == 5)
        #expect(try doc.get(obj: list, index: 2) == .Scalar(.String("b")))
        #expect(try doc.get(obj: list, index: 5) == nil)
    }

    @Test func putReplacesAnElementInPlace() throws {
        let (doc, list) = try listDocument(["a", "b", "c"])
        try doc.put(obj: list, index: 1, value: .Int(2))
        #expect(try doc.values(obj: list) == [.Scalar(.String("a")), .Scalar(.Int(2)), .Scalar(.String("c"))])
        #expect(doc.length(obj: list) == 3)
    }

    @Test func deleteRemovesOneElementAndShiftsTheRest() throws {
        let (doc, list) = try listDocument(["a", "b", "c"])
        try doc.delete(obj: list, index: 0)
        #expect(try strings(doc, list) == ["b", "c"])
        #expect(try doc.get(obj: list, index: 0) == .Scalar(.String("b")))
    }

    @Test func spliceDeletesThenInsertsAtTheStart() throws {
        let (doc, list) = try listDocument(["a", "b", "c", "d"])
        try doc.splice(obj: list, start: 1, delete: 2, values: [.String("X"), .String("Y"), .String("Z")])
        #expect(try strings(doc, list) == ["a", "X", "Y", "Z", "d"])
        try doc.splice(obj: list, start: 5, delete: 0, values: [.String("end")])
        #expect(try strings(doc, list) == ["a", "X", "Y", "Z", "d", "end"])
        try doc.splice(obj: list, start: 0, delete: 6, values: [])
        #expect(try strings(doc, list) == [])
    }

    @Test func spliceWithANegativeCountDeletesBeforeTheStart() throws {
        let (doc, list) = try listDocument(["a", "b", "c", "d"])
        try doc.splice(obj: list, start: 3, delete: -2, values: [.String("X")])
        #expect(try strings(doc, list) == ["a", "X", "d"])
    }

    @Test func nestedObjectsInAList() throws {
        let (doc, list) = try listDocument(["a"])
        let map = try doc.insertObject(obj: list, index: 0, ty: .Map)
        try doc.put(obj: map, key: "k", value: .Int(1))
        let replaced = try doc.putObject(obj: list, index: 1, ty: .List)
        #expect(try doc.values(obj: list) == [.Object(map, .Map), .Object(replaced, .List)])
        #expect(try doc.path(obj: map) == [PathElement(obj: .ROOT, prop: .Key("list")), PathElement(obj: list, prop: .Index(0))])
        #expect(try doc.lookupPath(path: ".list.[0]") == map)
    }

    @Test func elementPathsFollowInsertsBeforeThem() throws {
        let (doc, list) = try listDocument([])
        let map = try doc.insertObject(obj: list, index: 0, ty: .Map)
        try doc.insert(obj: list, index: 0, value: .Null)
        try doc.insert(obj: list, index: 0, value: .Null)
        #expect(try doc.path(obj: map).last == PathElement(obj: list, prop: .Index(2)))
    }

    // MARK: Concurrent edits

    @Test func concurrentInsertsAtOneIndexPutTheHigherOpIdFirstOnEveryPeer() throws {
        let (base, list) = try listDocument(["x"])
        let alice = base.forkPeer(0x01)
        let bob = base.forkPeer(0x02)
        try alice.insert(obj: list, index: 1, value: .String("alice"))  // 3@01
        try bob.insert(obj: list, index: 1, value: .String("bob"))  // 3@02
        try alice.merge(peer: bob)
        try bob.merge(peer: alice)
        #expect(try strings(alice, list) == ["x", "bob", "alice"])
        #expect(try strings(bob, list) == ["x", "bob", "alice"])
    }

    @Test func concurrentInsertsAtTheHeadOrderByOpIdRegardlessOfMergeOrder() throws {
        let (base, list) = try listDocument([])
        let peers = [base.forkPeer(0x02), base.forkPeer(0x03), base.forkPeer(0x01)]
        for peer in peers {
            try peer.insert(obj: list, index: 0, value: .String("\(peer.actor)"))
        }
        let c = base.forkPeer(0x09)
        try c.merge(peer: peers[2]); try c.merge(peer: peers[0]); try c.merge(peer: peers[1])
        let d = base.forkPeer(0x0a)
        try d.merge(peer: peers[1]); try d.merge(peer: peers[2]); try d.merge(peer: peers[0])
        try mergeAll(peers)
        for doc in peers + [c, d] {
            #expect(try strings(doc, list) == ["03", "02", "01"])
        }
    }

    @Test func aRunOfInsertsStaysTogetherNextToAConcurrentInsert() throws {
        // RGA: a later element whose reference is the first of a run is
        // placed after the whole higher-id run, so runs do not interleave.
        let (base, list) = try listDocument(["x"])
        let alice = base.forkPeer(0x01)
        let bob = base.forkPeer(0x02)
        try alice.insert(obj: list, index: 1, value: .String("a1"))  // 3@01
        try alice.insert(obj: list, index: 2, value: .String("a2"))  // 4@01
        try bob.insert(obj: list, index: 1, value: .String("b1"))  // 3@02
        try bob.insert(obj: list, index: 2, value: .String("b2"))  // 4@02
        try bob.insert(obj: list, index: 3, value: .String("b3"))  // 5@02
        try mergeAll([alice, bob])
        for doc in [alice, bob] {
            #expect(try strings(doc, list) == ["x", "b1", "b2", "b3", "a1", "a2"])
        }
    }

    @Test func anInsertWithAHigherCounterGoesFirstEvenFromALowerActor() throws {
        let (base, list) = try listDocument(["x"])
        let alice = base.forkPeer(0x01)
        let bob = base.forkPeer(0x02)
        try alice.put(obj: .ROOT, key: "pad", value: .Null)  // 3@01
        try alice.insert(obj: list, index: 0, value: .String("alice"))  // 4@01
        try bob.insert(obj: list, index: 0, value: .String("bob"))  // 3@02
        try mergeAll([alice, bob])
        for doc in [alice, bob] { #expect(try strings(doc, list) == ["alice", "bob", "x"]) }
    }

    @Test func concurrentDeletesOfOneElementDeleteItOnce() throws {
        let (base, list) = try listDocument(["a", "b", "c"])
        let alice = base.forkPeer(0x01)
        let bob = base.forkPeer(0x02)
        try alice.delete(obj: list, index: 1)
        try bob.delete(obj: list, index: 1)
        try mergeAll([alice, bob])
        for doc in [alice, bob] { #expect(try strings(doc, list) == ["a", "c"]) }
    }

    @Test func concurrentDeletesOfDifferentElementsBothApply() throws {
        let (base, list) = try listDocument(["a", "b", "c", "d"])
        let alice = base.forkPeer(0x01)
        let bob = base.forkPeer(0x02)
        try alice.delete(obj: list, index: 0)
        try bob.delete(obj: list, index: 3)
        try mergeAll([alice, bob])
        for doc in [alice, bob] { #expect(try strings(doc, list) == ["b", "c"]) }
    }

    @Test func anInsertAfterAConcurrentlyDeletedElementSurvivesInPlace() throws {
        let (base, list) = try listDocument(["a", "b", "c"])
        let alice = base.forkPeer(0x01)
        let bob = base.forkPeer(0x02)
        try alice.delete(obj: list, index: 1)
        try bob.insert(obj: list, index: 2, value: .String("after-b"))
        try mergeAll([alice, bob])
        for doc in [alice, bob] { #expect(try strings(doc, list) == ["a", "after-b", "c"]) }
    }

    @Test func anUpdateConcurrentWithADeleteSurvives() throws {
        let (base, list) = try listDocument(["a", "b", "c"])
        let alice = base.forkPeer(0x01)
        let bob = base.forkPeer(0x02)
        try alice.put(obj: list, index: 1, value: .String("B"))
        try bob.delete(obj: list, index: 1)
        try mergeAll([alice, bob])
        for doc in [alice, bob] {
            #expect(try strings(doc, list) == ["a", "B", "c"])
            #expect(try doc.getAll(obj: list, index: 1) == [.Scalar(.String("B"))])
        }
    }

    @Test func concurrentPutsToOneElementConflict() throws {
        let (base, list) = try listDocument(["a"])
        let alice = base.forkPeer(0x01)
        let bob = base.forkPeer(0x02)
        try alice.put(obj: list, index: 0, value: .String("alice"))
        try bob.put(obj: list, index: 0, value: .String("bob"))
        try mergeAll([alice, bob])
        for doc in [alice, bob] {
            #expect(try doc.get(obj: list, index: 0) == .Scalar(.String("bob")))
            #expect(try doc.getAll(obj: list, index: 0) == [.Scalar(.String("alice")), .Scalar(.String("bob"))])
            #expect(doc.length(obj: list) == 1)
        }
        // Deleting the conflicted element removes it everywhere.
        try alice.delete(obj: list, index: 0)
        try bob.merge(peer: alice)
        #expect(bob.length(obj: list) == 0)
    }
}

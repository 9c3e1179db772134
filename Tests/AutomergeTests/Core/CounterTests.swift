import Foundation
import Testing
@testable import Automerge

@Suite("Counters")
struct CounterTests {

    @Test func incrementAddsToTheCounter() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "c", value: .Counter(10))
        try doc.increment(obj: .ROOT, key: "c", by: 5)
        try doc.increment(obj: .ROOT, key: "c", by: -7)
        #expect(try doc.get(obj: .ROOT, key: "c") == .Scalar(.Counter(8)))
        doc.commitChange()
        try doc.increment(obj: .ROOT, key: "c", by: 2)
        #expect(try doc.get(obj: .ROOT, key: "c") == .Scalar(.Counter(10)))
        // Increments do not make conflicts.
        #expect(try doc.getAll(obj: .ROOT, key: "c") == [.Scalar(.Counter(10))])
    }

    @Test func countersInListsIncrementByIndex() throws {
        let doc = Document.peer(0x01)
        let list = try doc.putObject(obj: .ROOT, key: "l", ty: .List)
        try doc.insert(obj: list, index: 0, value: .String("x"))
        try doc.insert(obj: list, index: 1, value: .Counter(0))
        try doc.increment(obj: list, index: 1, by: 3)
        #expect(try doc.get(obj: list, index: 1) == .Scalar(.Counter(3)))
        #expect(doc.length(obj: list) == 2)
    }

    @Test func concurrentIncrementsSumOnEveryPeer() throws {
        let alice = Document.peer(0x01)
        try alice.put(obj: .ROOT, key: "c", value: .Counter(1))
        let bob = alice.forkPeer(0x02)
        let carol = alice.forkPeer(0x03)
        try alice.increment(obj: .ROOT, key: "c", by: 10)
        try bob.increment(obj: .ROOT, key: "c", by: 100)
        try bob.increment(obj: .ROOT, key: "c", by: 100)
        try carol.increment(obj: .ROOT, key: "c", by: -1)
        try mergeAll([alice, bob, carol])
        for doc in [alice, bob, carol] {
            #expect(try doc.get(obj: .ROOT, key: "c") == .Scalar(.Counter(210)))
            #expect(try doc.getAll(obj: .ROOT, key: "c").count == 1)
        }
    }

    @Test func concurrentIncrementsOfAListCounterSum() throws {
        let alice = Document.peer(0x01)
        let list = try alice.putObject(obj: .ROOT, key: "l", ty: .List)
        try alice.insert(obj: list, index: 0, value: .Counter(0))
        let bob = alice.forkPeer(0x02)
        try alice.increment(obj: list, index: 0, by: 2)
        try bob.increment(obj: list, index: 0, by: 3)
        try mergeAll([alice, bob])
        for doc in [alice, bob] { #expect(try doc.get(obj: list, index: 0) == .Scalar(.Counter(5))) }
    }

    @Test func anIncrementConcurrentWithAPutIsLost() throws {
        let alice = Document.peer(0x01)
        try alice.put(obj: .ROOT, key: "c", value: .Counter(1))
        try alice.increment(obj: .ROOT, key: "c", by: 1)
        let bob = alice.forkPeer(0x02)
        try alice.put(obj: .ROOT, key: "c", value: .Counter(100))
        try bob.increment(obj: .ROOT, key: "c", by: 5)
        try mergeAll([alice, bob])
        for doc in [alice, bob] {
            #expect(try doc.get(obj: .ROOT, key: "c") == .Scalar(.Counter(100)))
            #expect(try doc.getAll(obj: .ROOT, key: "c") == [.Scalar(.Counter(100))])
        }
    }

    @Test func anIncrementConcurrentWithADeleteIsLost() throws {
        let alice = Document.peer(0x01)
        try alice.put(obj: .ROOT, key: "c", value: .Counter(1))
        let bob = alice.forkPeer(0x02)
        try alice.delete(obj: .ROOT, key: "c")
        try bob.increment(obj: .ROOT, key: "c", by: 5)
        try mergeAll([alice, bob])
        for doc in [alice, bob] {
            #expect(try doc.get(obj: .ROOT, key: "c") == nil)
            #expect(doc.keys(obj: .ROOT).isEmpty)
        }
    }

    @Test func anIncrementOverwritesConcurrentNonCounterValues() throws {
        // inc lists every visible op as a predecessor: it adds to the
        // counters and overwrites the others.
        let alice = Document.peer(0x01)
        let bob = alice.forkPeer(0x02)
        try alice.put(obj: .ROOT, key: "c", value: .Counter(1))  // 1@01
        try bob.put(obj: .ROOT, key: "c", value: .Int(50))  // 1@02, the winner
        try alice.merge(peer: bob)
        #expect(try alice.get(obj: .ROOT, key: "c") == .Scalar(.Int(50)))
        try alice.increment(obj: .ROOT, key: "c", by: 3)
        #expect(alice.pendingOps == ["2@01 increment _root.\"c\" pred [1@01,1@02] value int(3)"])
        try bob.merge(peer: alice)
        for doc in [alice, bob] {
            #expect(try doc.get(obj: .ROOT, key: "c") == .Scalar(.Counter(4)))
            #expect(try doc.getAll(obj: .ROOT, key: "c") == [.Scalar(.Counter(4))])
        }
    }

    @Test func incrementOfANonCounterThrowsAndChangesNothing() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "n", value: .Int(1))
        try doc.put(obj: .ROOT, key: "s", value: .String("x"))
        doc.commitChange()
        try doc.put(obj: .ROOT, key: "pending", value: .Int(0))
        let before = Snapshot(doc)
        for key in ["n", "s", "absent"] {
            let error = #expect(throws: AutomergeError.self) { try doc.increment(obj: .ROOT, key: key, by: 1) }
            #expect(error == .notACounter(.ROOT, .Key(key)))
        }
        #expect(Snapshot(doc) == before)
        #expect(try doc.get(obj: .ROOT, key: "n") == .Scalar(.Int(1)))
    }

    @Test func incrementOfANonCounterListElementThrows() throws {
        let doc = Document.peer(0x01)
        let list = try doc.putObject(obj: .ROOT, key: "l", ty: .List)
        try doc.insert(obj: list, index: 0, value: .Uint(3))
        let before = Snapshot(doc)
        let error = #expect(throws: AutomergeError.self) { try doc.increment(obj: list, index: 0, by: 1) }
        #expect(error == .notACounter(list, .Index(0)))
        #expect(Snapshot(doc) == before)
    }

    @Test func putOfACounterResetsItsIncrements() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "c", value: .Counter(0))
        try doc.increment(obj: .ROOT, key: "c", by: 9)
        try doc.put(obj: .ROOT, key: "c", value: .Counter(0))
        #expect(try doc.get(obj: .ROOT, key: "c") == .Scalar(.Counter(0)))
    }
}

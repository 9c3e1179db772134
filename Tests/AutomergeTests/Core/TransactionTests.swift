import Foundation
import Testing
@testable import Automerge

// An open transaction keeps only where each op went in the op set, and the
// commit reads the ops back from there (Transaction, PendingOp). These pin
// what that read-back must get right: predecessors recovered from
// successors when later ops of the same transaction overwrite earlier ones,
// every kind of op, and a change identical to what the ops were.

@Suite("Transactions")
struct TransactionTests {
    @Test("ops that overwrite ops of the same transaction read back with the predecessors they were made with")
    func overwritesWithinOneTransaction() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "k", value: .Int(1))
        try doc.put(obj: .ROOT, key: "k", value: .Int(2))
        try doc.delete(obj: .ROOT, key: "k")
        try doc.put(obj: .ROOT, key: "k", value: .Int(3))
        try doc.put(obj: .ROOT, key: "k", value: .Int(3))  // the value it has: no op
        let list = try doc.putObject(obj: .ROOT, key: "l", ty: .List)
        try doc.insert(obj: list, index: 0, value: .Int(10))
        try doc.put(obj: list, index: 0, value: .Int(11))
        try doc.put(obj: list, index: 0, value: .Counter(0))
        try doc.increment(obj: list, index: 0, by: 5)
        try doc.delete(obj: list, index: 0)
        #expect(doc.pendingOps == [
            #"1@01 set _root."k" pred [] value int(1)"#,
            #"2@01 set _root."k" pred [1@01] value int(2)"#,
            #"3@01 delete _root."k" pred [2@01]"#,
            #"4@01 set _root."k" pred [] value int(3)"#,
            #"5@01 makeList _root."l" pred []"#,
            #"6@01 set 5@01._head insert pred [] value int(10)"#,
            #"7@01 set 5@01.6@01 pred [6@01] value int(11)"#,
            #"8@01 set 5@01.6@01 pred [7@01] value counter(0)"#,
            #"9@01 increment 5@01.6@01 pred [8@01] value int(5)"#,
            #"10@01 delete 5@01.6@01 pred [8@01]"#,
        ])
    }

    @Test("a splice deletes each element with its visible ops as predecessors, whether it has only its insert op or updates too")
    func spliceDeletesPlainAndUpdatedElements() throws {
        let doc = Document.peer(0x01)
        let list = try doc.putObject(obj: .ROOT, key: "l", ty: .List)
        try doc.splice(obj: list, start: 0, delete: 0, values: [.Int(1), .Int(2), .Int(3), .Counter(0), .Int(5)])
        try doc.put(obj: list, index: 1, value: .Int(20))
        try doc.increment(obj: list, index: 3, by: 2)
        // Elements 0 and 2 have only their insert op (deleted in place);
        // 1 was overwritten and 3 incremented (their visible ops are read).
        try doc.splice(obj: list, start: 0, delete: 4, values: [])
        let text = try doc.putObject(obj: .ROOT, key: "t", ty: .Text)
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "ab")
        try doc.spliceText(obj: text, start: 0, delete: 2, value: "c")
        #expect(doc.pendingOps == [
            #"1@01 makeList _root."l" pred []"#,
            #"2@01 set 1@01._head insert pred [] value int(1)"#,
            #"3@01 set 1@01.2@01 insert pred [] value int(2)"#,
            #"4@01 set 1@01.3@01 insert pred [] value int(3)"#,
            #"5@01 set 1@01.4@01 insert pred [] value counter(0)"#,
            #"6@01 set 1@01.5@01 insert pred [] value int(5)"#,
            #"7@01 set 1@01.3@01 pred [3@01] value int(20)"#,
            #"8@01 increment 1@01.5@01 pred [5@01] value int(2)"#,
            #"9@01 delete 1@01.2@01 pred [2@01]"#,
            #"10@01 delete 1@01.3@01 pred [7@01]"#,
            #"11@01 delete 1@01.4@01 pred [4@01]"#,
            #"12@01 delete 1@01.5@01 pred [5@01]"#,
            #"13@01 makeText _root."t" pred []"#,
            #"14@01 set 13@01._head insert pred [] value string("a")"#,
            #"15@01 set 13@01.14@01 insert pred [] value string("b")"#,
            #"16@01 set 13@01._head insert pred [] value string("c")"#,
            #"17@01 delete 13@01.14@01 pred [14@01]"#,
            #"18@01 delete 13@01.15@01 pred [15@01]"#,
        ])
        #expect(doc.length(obj: list) == 1)
        #expect(try doc.text(obj: text) == "c")
        let reloaded = try Document(doc.save())
        #expect(try reloaded.text(obj: text) == "c")
        #expect(reloaded.length(obj: list) == 1)
    }

    @Test("a change committed from one long transaction of every kind of op rebuilds the document elsewhere, byte for byte")
    func longTransactionRoundTrip() throws {
        let doc = Document.peer(0x01)
        let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "hello wörld 🙂")
        let peer = doc.forkPeer(0x02)
        try peer.spliceText(obj: text, start: 5, delete: 0, value: ", concurrent")
        try peer.put(obj: .ROOT, key: "conflict", value: .String("peer"))
        try doc.put(obj: .ROOT, key: "conflict", value: .String("doc"))
        try doc.merge(peer: peer)
        let before = doc.fork()

        // One transaction: typing, deleting backwards and forwards, marks,
        // nested objects, counters, overwrites and conflict resolution.
        for (offset, character) in "typed ".enumerated() {
            try doc.spliceText(obj: text, start: UInt64(offset), delete: 0, value: String(character))
        }
        try doc.spliceText(obj: text, start: 6, delete: -3, value: "")
        try doc.spliceText(obj: text, start: 2, delete: 4, value: "XY")
        try doc.mark(obj: text, start: 1, end: 8, expand: .both, name: "bold", value: .Boolean(true))
        try doc.mark(obj: text, start: 3, end: 3, expand: .after, name: "cursor", value: .String("me"))
        try doc.put(obj: .ROOT, key: "conflict", value: .String("resolved"))
        try doc.put(obj: .ROOT, key: "count", value: .Counter(1))
        try doc.increment(obj: .ROOT, key: "count", by: 41)
        let map = try doc.putObject(obj: .ROOT, key: "map", ty: .Map)
        let inner = try doc.putObject(obj: map, key: "list", ty: .List)
        for index in 0..<50 { try doc.insert(obj: inner, index: UInt64(index), value: .Int(Int64(index))) }
        for index in stride(from: 0, to: 50, by: 7) { try doc.put(obj: inner, index: UInt64(index), value: .String("x")) }
        for index in stride(from: 49, through: 0, by: -5) { try doc.delete(obj: inner, index: UInt64(index)) }
        let nested = try doc.insertObject(obj: inner, index: 3, ty: .Map)
        try doc.put(obj: nested, key: "deep", value: .Bytes(Data([1, 2, 3])))
        try doc.delete(obj: .ROOT, key: "conflict")
        doc.commitChange()

        let change = try #require(doc.getHistory().last)
        #expect(doc.getHistory().count == before.getHistory().count + 1)
        try before.applyEncodedChanges(encoded: doc.encodeChangesSince(heads: before.heads()))
        #expect(before.heads() == doc.heads())
        #expect(before.heads() == [change])
        #expect(try before.text(obj: text) == doc.text(obj: text))
        #expect(try before.marks(obj: text) == doc.marks(obj: text))
        #expect(before.save() == doc.save())
    }

    @Test("a change whose ops overwrite ops of more than 64 actors names every one of them (actors past the first 64 are noted apart)")
    func manyActorsMentioned() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "start", value: .Int(0))
        let base = doc.forkPeer(0x02)
        for byte in UInt8(3)..<UInt8(75) {
            let peer = base.forkPeer(byte)
            try peer.put(obj: .ROOT, key: "k\(byte)", value: .Int(Int64(byte)))
            try doc.merge(peer: peer)
        }
        let before = doc.fork()
        for byte in UInt8(3)..<UInt8(75) { try doc.put(obj: .ROOT, key: "k\(byte)", value: .String("mine")) }
        doc.commitChange()
        let change = try #require(doc.getHistory().last)
        try before.applyEncodedChanges(encoded: doc.encodeChangesSince(heads: before.heads()))
        #expect(before.heads() == [change])
        #expect(try before.get(obj: .ROOT, key: "k74") == .Scalar(.String("mine")))
        #expect(before.save() == doc.save())
    }
}

import Foundation
import Testing
@testable import Automerge

// The ops each call generates, pinned exactly, because they decide change
// hashes and so must equal the Rust reference's. Ops render as
// `<id> <action> <obj>.<key> [insert] pred [...] [value v] [name n] [expand]`
// (see `DocumentState.render`), read from the open transaction before commit.

@Suite("Op generation")
struct OpGenerationTests {

    // MARK: Maps

    @Test func aPutMakesOneSetOpWhosePredecessorsAreTheVisibleOps() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "k", value: .Int(1))
        try doc.put(obj: .ROOT, key: "k", value: .String("two"))
        #expect(doc.pendingOps == [
            #"1@01 set _root."k" pred [] value int(1)"#,
            #"2@01 set _root."k" pred [1@01] value string("two")"#,
        ])
    }

    @Test func puttingTheValueAlreadyThereMakesNoOp() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "k", value: .Int(1))
        try doc.put(obj: .ROOT, key: "f", value: .F64(0.0))
        doc.commitChange()
        let heads = doc.heads()
        try doc.put(obj: .ROOT, key: "k", value: .Int(1))
        // Rust compares floats with IEEE ==, so -0.0 equals 0.0.
        try doc.put(obj: .ROOT, key: "f", value: .F64(-0.0))
        #expect(doc.pendingOps == [])
        doc.commitWith()
        #expect(doc.heads() == heads)
        #expect(doc.getHistory().count == 1)
    }

    @Test func puttingAnEqualLookingButDifferentValueMakesAnOp() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "int", value: .Int(1))
        try doc.put(obj: .ROOT, key: "str", value: .String("\u{E9}"))
        try doc.put(obj: .ROOT, key: "nan", value: .F64(.nan))
        doc.commitChange()
        try doc.put(obj: .ROOT, key: "int", value: .Uint(1))
        try doc.put(obj: .ROOT, key: "str", value: .String("e\u{301}"))  // canonically equivalent, different scalars
        try doc.put(obj: .ROOT, key: "nan", value: .F64(.nan))  // NaN != NaN
        #expect(doc.pendingOps.count == 3)
        #expect(doc.pendingOps[1] == #"5@01 set _root."str" pred [2@01] value string("e\u{301}")"#)
    }

    @Test func puttingTheWinnerOfAConflictDeletesTheLosers() throws {
        let alice = Document.peer(0x01)
        let list = try alice.putObject(obj: .ROOT, key: "l", ty: .List)  // 1@01
        try alice.insert(obj: list, index: 0, value: .Null)  // 2@01
        let bob = alice.forkPeer(0x02)
        let carol = alice.forkPeer(0x03)
        try alice.put(obj: .ROOT, key: "k", value: .Int(1))  // 3@01
        try bob.put(obj: .ROOT, key: "k", value: .Int(2))  // 3@02
        try carol.put(obj: .ROOT, key: "k", value: .Int(3))  // 3@03, the winner
        try alice.put(obj: list, index: 0, value: .String("a"))  // 4@01
        try carol.put(obj: list, index: 0, value: .String("c"))  // 4@03, the winner
        try alice.merge(peer: bob)
        try alice.merge(peer: carol)
        try alice.put(obj: .ROOT, key: "k", value: .Int(3))
        try alice.put(obj: list, index: 0, value: .String("c"))
        #expect(alice.pendingOps == [
            #"5@01 delete _root."k" pred [3@01,3@02]"#,
            #"6@01 delete 1@01.2@01 pred [4@01]"#,
        ])
        #expect(try alice.getAll(obj: .ROOT, key: "k") == [.Scalar(.Int(3))])
        #expect(try alice.getAll(obj: list, index: 0) == [.Scalar(.String("c"))])
    }

    @Test func deletingAnAbsentKeyMakesNoOp() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "k", value: .Int(1))
        try doc.delete(obj: .ROOT, key: "k")
        #expect(doc.pendingOps == [#"1@01 set _root."k" pred [] value int(1)"#, #"2@01 delete _root."k" pred [1@01]"#])
        try doc.delete(obj: .ROOT, key: "k")  // already deleted
        try doc.delete(obj: .ROOT, key: "never")
        #expect(doc.pendingOpCount == 2)
    }

    @Test func putObjectMakesAMakeOpAndNestedWritesTargetIt() throws {
        let doc = Document.peer(0x01)
        let map = try doc.putObject(obj: .ROOT, key: "m", ty: .Map)
        try doc.put(obj: map, key: "x", value: .Int(1))
        let list = try doc.putObject(obj: map, key: "l", ty: .List)
        let text = try doc.insertObject(obj: list, index: 0, ty: .Text)
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "a")
        _ = try doc.putObject(obj: list, index: 0, ty: .Map)
        _ = try doc.putObject(obj: .ROOT, key: "m", ty: .Text)
        #expect(doc.pendingOps == [
            #"1@01 makeMap _root."m" pred []"#,
            #"2@01 set 1@01."x" pred [] value int(1)"#,
            #"3@01 makeList 1@01."l" pred []"#,
            #"4@01 makeText 3@01._head insert pred []"#,
            #"5@01 set 4@01._head insert pred [] value string("a")"#,
            #"6@01 makeMap 3@01.4@01 pred [4@01]"#,
            #"7@01 makeText _root."m" pred [1@01]"#,
        ])
    }

    // MARK: Lists and text

    @Test func insertsChainFromTheElementBeforeThemOrTheHead() throws {
        let doc = Document.peer(0x01)
        let list = try doc.putObject(obj: .ROOT, key: "l", ty: .List)
        try doc.insert(obj: list, index: 0, value: .Int(1))
        try doc.insert(obj: list, index: 0, value: .Int(0))
        try doc.insert(obj: list, index: 2, value: .Int(2))
        #expect(doc.pendingOps == [
            #"1@01 makeList _root."l" pred []"#,
            #"2@01 set 1@01._head insert pred [] value int(1)"#,
            #"3@01 set 1@01._head insert pred [] value int(0)"#,
            #"4@01 set 1@01.2@01 insert pred [] value int(2)"#,
        ])
    }

    @Test func spliceEmitsTheInsertsFirstEachAfterThePreviousThenTheDeletes() throws {
        let doc = Document.peer(0x01)
        let list = try doc.putObject(obj: .ROOT, key: "l", ty: .List)  // 1@01
        try doc.splice(obj: list, start: 0, delete: 0, values: [.String("x"), .String("y"), .String("z")])  // 2, 3, 4
        doc.commitChange()
        try doc.splice(obj: list, start: 1, delete: 2, values: [.String("A"), .String("B")])
        #expect(doc.pendingOps == [
            #"5@01 set 1@01.2@01 insert pred [] value string("A")"#,
            #"6@01 set 1@01.5@01 insert pred [] value string("B")"#,
            #"7@01 delete 1@01.3@01 pred [3@01]"#,
            #"8@01 delete 1@01.4@01 pred [4@01]"#,
        ])
    }

    @Test func deletingAListElementNamesItsVisibleOpsAsPredecessors() throws {
        let doc = Document.peer(0x01)
        let list = try doc.putObject(obj: .ROOT, key: "l", ty: .List)  // 1@01
        try doc.insert(obj: list, index: 0, value: .Int(1))  // 2@01
        try doc.put(obj: list, index: 0, value: .Int(2))  // 3@01
        try doc.delete(obj: list, index: 0)
        #expect(doc.pendingOps.suffix(2) == [
            #"3@01 set 1@01.2@01 pred [2@01] value int(2)"#,
            #"4@01 delete 1@01.2@01 pred [3@01]"#,
        ])
    }

    @Test func spliceTextMakesOneOpPerUnicodeScalar() throws {
        let (doc, text) = try textDocument("ab")  // 1@01 text, 2@01 "a", 3@01 "b"
        try doc.spliceText(obj: text, start: 1, delete: 1, value: "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}e\u{301}")
        #expect(doc.pendingOps == [
            #"4@01 set 1@01.2@01 insert pred [] value string("\u{1F468}")"#,
            #"5@01 set 1@01.4@01 insert pred [] value string("\u{200D}")"#,
            #"6@01 set 1@01.5@01 insert pred [] value string("\u{1F469}")"#,
            #"7@01 set 1@01.6@01 insert pred [] value string("\u{200D}")"#,
            #"8@01 set 1@01.7@01 insert pred [] value string("\u{1F467}")"#,
            #"9@01 set 1@01.8@01 insert pred [] value string("e")"#,
            #"10@01 set 1@01.9@01 insert pred [] value string("\u{301}")"#,
            #"11@01 delete 1@01.3@01 pred [3@01]"#,
        ])
    }

    @Test func spliceTextMakesOneOpPerGraphemeUnderGraphemeClusterEncoding() throws {
        let (doc, text) = try textDocument("ab", encoding: .graphemeCluster)
        try doc.spliceText(obj: text, start: 1, delete: 0, value: "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}e\u{301}")
        #expect(doc.pendingOps == [
            #"4@01 set 1@01.2@01 insert pred [] value string("\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}")"#,
            #"5@01 set 1@01.4@01 insert pred [] value string("e\u{301}")"#,
        ])
    }

    @Test func typingAtTheEndGoesAfterTheLastVisibleCharacterNotAfterDeletedOnes() throws {
        let (doc, text) = try textDocument("abc")  // 2@01 "a", 3@01 "b", 4@01 "c"
        try doc.spliceText(obj: text, start: 2, delete: 1)  // backspace twice
        try doc.spliceText(obj: text, start: 1, delete: 1)
        try doc.spliceText(obj: text, start: 1, delete: 0, value: "X")
        try doc.spliceText(obj: text, start: 2, delete: 0, value: "Y")
        #expect(doc.pendingOps == [
            "5@01 delete 1@01.4@01 pred [4@01]",
            "6@01 delete 1@01.3@01 pred [3@01]",
            #"7@01 set 1@01.2@01 insert pred [] value string("X")"#,
            #"8@01 set 1@01.7@01 insert pred [] value string("Y")"#,
        ])
        #expect(try doc.text(obj: text) == "aXY")
    }

    @Test func deletingTextDeletesEachElementInOrder() throws {
        let (doc, text) = try textDocument("abcd")  // 2@01...5@01
        try doc.spliceText(obj: text, start: 1, delete: 2)
        try doc.delete(obj: text, index: 0)
        #expect(doc.pendingOps == [
            "6@01 delete 1@01.3@01 pred [3@01]",
            "7@01 delete 1@01.4@01 pred [4@01]",
            "8@01 delete 1@01.2@01 pred [2@01]",
        ])
    }

    // MARK: Counters

    @Test func incrementMakesAnIncOpWithTheAmountAndTheCounterAsPredecessor() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "c", value: .Counter(1))
        let list = try doc.putObject(obj: .ROOT, key: "l", ty: .List)
        try doc.insert(obj: list, index: 0, value: .Counter(0))
        doc.commitChange()
        try doc.increment(obj: .ROOT, key: "c", by: 3)
        try doc.increment(obj: .ROOT, key: "c", by: -1)
        try doc.increment(obj: list, index: 0, by: 2)
        #expect(doc.pendingOps == [
            #"4@01 increment _root."c" pred [1@01] value int(3)"#,
            #"5@01 increment _root."c" pred [1@01] value int(-1)"#,
            #"6@01 increment 2@01.3@01 pred [3@01] value int(2)"#,
        ])
    }

    // MARK: Marks

    @Test(arguments: [
        (ExpandMark.before, " expand", ""),
        (.after, "", " expand"),
        (.both, " expand", " expand"),
        (.none, "", ""),
    ])
    func aMarkIsABeginAndAnEndAnchorWithConsecutiveIds(_ expand: ExpandMark, _ beginFlag: String, _ endFlag: String) throws {
        let (doc, text) = try textDocument("hello")  // 1@01 text, "h" 2@01 ... "o" 6@01
        try doc.mark(obj: text, start: 1, end: 3, expand: expand, name: "bold", value: .Boolean(true))
        #expect(doc.pendingOps == [
            "7@01 mark 1@01.2@01 insert pred [] value bool(true) name bold" + beginFlag,
            "8@01 mark 1@01.4@01 insert pred []" + endFlag,
        ])
    }

    @Test func unmarkIsAMarkWithANullValue() throws {
        let (doc, text) = try textDocument("hello")
        try doc.mark(obj: text, start: 0, end: 5, expand: .after, name: "link", value: .Null)
        #expect(doc.pendingOps == [
            "7@01 mark 1@01._head insert pred [] name link",
            "8@01 mark 1@01.6@01 insert pred [] expand",
        ])
    }

    @Test func textTypedAfterAnAnchorIsKeyedOnTheAnchor() throws {
        let (doc, text) = try textDocument("ab")  // "a" 2@01, "b" 3@01
        try doc.mark(obj: text, start: 0, end: 1, expand: .both, name: "b", value: .Boolean(true))  // 4@01 begin, 5@01 end
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "<")
        try doc.spliceText(obj: text, start: 2, delete: 0, value: ">")
        #expect(doc.pendingOps.suffix(2) == [
            #"6@01 set 1@01.4@01 insert pred [] value string("<")"#,  // after the expanding begin anchor
            #"7@01 set 1@01.2@01 insert pred [] value string(">")"#,  // after "a", before the expanding end anchor
        ])
        #expect(try doc.text(obj: text) == "<a>b")
        #expect(try doc.marks(obj: text) == [Mark(start: 0, end: 3, name: "b", value: .Boolean(true))])
    }

    // MARK: Changes

    @Test func aChangeDependsOnTheHeadsAndOnTheActorsPreviousChange() throws {
        let alice = Document.peer(0x01)
        try alice.put(obj: .ROOT, key: "a", value: .Int(1))
        let first = alice.committedHeads()
        try alice.put(obj: .ROOT, key: "a", value: .Int(2))
        let second = alice.committedHeads()
        #expect(alice.change(hash: second.first!).map { Set($0.deps) } == first)
        #expect(alice.change(hash: second.first!)?.seq == 2)

        // Bob builds on alice's second change; after merging, alice's own
        // previous change is no longer a head but is still listed as a dependency.
        let bob = alice.forkPeer(0x02)
        try bob.put(obj: .ROOT, key: "b", value: .Int(1))
        try bob.put(obj: .ROOT, key: "b", value: .Int(2))
        try bob.put(obj: .ROOT, key: "b", value: .Int(3))
        let bobHeads = bob.committedHeads()
        try alice.merge(peer: bob)
        #expect(alice.heads() == bobHeads)
        try alice.put(obj: .ROOT, key: "a", value: .Int(3))
        // The first op id follows the document's largest counter (bob's 5).
        #expect(alice.pendingOps == [#"6@01 set _root."a" pred [2@01] value int(3)"#])
        let third = alice.committedHeads()
        let change = try #require(alice.change(hash: third.first!))
        #expect(change.deps == bobHeads.union(second).sorted())
        #expect(change.seq == 3)
    }

    @Test func committingNoOpsMakesNoChange() throws {
        let doc = Document.peer(0x01)
        doc.commitWith(message: "nothing")
        #expect(doc.heads().isEmpty && doc.getHistory().isEmpty)
        try doc.put(obj: .ROOT, key: "k", value: .Int(1))
        doc.commitWith()
        let heads = doc.heads()
        try doc.delete(obj: .ROOT, key: "absent")
        try doc.put(obj: .ROOT, key: "k", value: .Int(1))
        #expect(throws: AutomergeError.self) { try doc.increment(obj: .ROOT, key: "k", by: 1) }
        doc.commitWith(message: "still nothing")
        #expect(doc.heads() == heads)
        #expect(doc.getHistory().count == 1)
    }
}

import Foundation
import Testing
@testable import Automerge

/// A document edited in four steps (one with a concurrent peer), with the
/// heads after each step and the full state as current reads saw it then.
private struct Timeline {
    var doc: Document
    var text: ObjId
    var list: ObjId
    var nested: ObjId
    var heads: [Set<ChangeHash>] = []
    var states: [String] = []

    mutating func checkpoint() {
        heads.append(doc.committedHeads())
        states.append(describe(doc, .ROOT))
    }

    static func make() throws -> Timeline {
        let doc = Document.peer(0x01)
        let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.put(obj: .ROOT, key: "title", value: .String("v1"))
        try doc.put(obj: .ROOT, key: "count", value: .Counter(0))
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "hello")
        try doc.splice(obj: list, start: 0, delete: 0, values: [.Int(1), .Int(2)])
        var timeline = Timeline(doc: doc, text: text, list: list, nested: .ROOT)
        timeline.checkpoint()  // 0

        try doc.put(obj: .ROOT, key: "title", value: .String("v2"))
        try doc.insert(obj: list, index: 0, value: .Int(3))
        try doc.delete(obj: list, index: 1)
        try doc.spliceText(obj: text, start: 3, delete: 2, value: "p me")
        try doc.mark(obj: text, start: 0, end: 4, expand: .after, name: "bold", value: .Boolean(true))
        try doc.increment(obj: .ROOT, key: "count", by: 5)
        timeline.nested = try doc.putObject(obj: .ROOT, key: "nested", ty: .Map)
        try doc.put(obj: timeline.nested, key: "a", value: .Uint(1))
        timeline.checkpoint()  // 1

        let bob = doc.forkPeer(0x02)
        try doc.put(obj: .ROOT, key: "title", value: .String("alice"))
        try doc.put(obj: list, index: 0, value: .String("alice"))
        try bob.put(obj: .ROOT, key: "title", value: .String("bob"))
        try bob.put(obj: list, index: 0, value: .String("bob"))
        try bob.increment(obj: .ROOT, key: "count", by: 10)
        try bob.spliceText(obj: text, start: 0, delete: 0, value: "¡")
        try doc.merge(peer: bob)
        timeline.checkpoint()  // 2: two heads, conflicts

        try doc.delete(obj: .ROOT, key: "title")
        try doc.mark(obj: text, start: 0, end: 8, expand: .none, name: "bold", value: .Null)
        try doc.delete(obj: timeline.nested, key: "a")
        try doc.spliceText(obj: text, start: 0, delete: 1)
        timeline.checkpoint()  // 3
        return timeline
    }
}

@Suite("History and time travel")
struct HistoryTests {

    @Test func readsAtEarlierHeadsReproduceEachEarlierStateExactly() throws {
        let timeline = try Timeline.make()
        #expect(timeline.heads[2].count == 2, "the merge leaves two heads")
        for (heads, state) in zip(timeline.heads, timeline.states) {
            #expect(describe(timeline.doc, .ROOT, at: heads) == state)
        }
        // The states really differ, so the comparison above means something.
        #expect(Set(timeline.states).count == 4)
    }

    @Test func individualReadsAtHeads() throws {
        let t = try Timeline.make()
        let doc = t.doc
        #expect(try doc.getAt(obj: .ROOT, key: "title", heads: t.heads[0]) == .Scalar(.String("v1")))
        #expect(try doc.getAt(obj: .ROOT, key: "title", heads: t.heads[1]) == .Scalar(.String("v2")))
        #expect(try doc.getAt(obj: .ROOT, key: "title", heads: t.heads[2]) == .Scalar(.String("bob")))
        #expect(try doc.getAllAt(obj: .ROOT, key: "title", heads: t.heads[2]) == [.Scalar(.String("alice")), .Scalar(.String("bob"))])
        #expect(try doc.getAt(obj: .ROOT, key: "title", heads: t.heads[3]) == nil)
        #expect(try doc.get(obj: .ROOT, key: "title") == nil)

        #expect(try doc.getAt(obj: .ROOT, key: "count", heads: t.heads[0]) == .Scalar(.Counter(0)))
        #expect(try doc.getAt(obj: .ROOT, key: "count", heads: t.heads[1]) == .Scalar(.Counter(5)))
        #expect(try doc.getAt(obj: .ROOT, key: "count", heads: t.heads[2]) == .Scalar(.Counter(15)))

        #expect(try doc.textAt(obj: t.text, heads: t.heads[0]) == "hello")
        #expect(try doc.textAt(obj: t.text, heads: t.heads[1]) == "help me")
        #expect(try doc.textAt(obj: t.text, heads: t.heads[2]) == "¡help me")
        #expect(try doc.text(obj: t.text) == "help me")
        #expect(doc.lengthAt(obj: t.text, heads: t.heads[2]) == 8)

        #expect(try doc.marksAt(obj: t.text, heads: t.heads[0]) == [])
        #expect(try doc.marksAt(obj: t.text, heads: t.heads[1]) == [Mark(start: 0, end: 4, name: "bold", value: .Boolean(true))])
        #expect(try doc.marksAt(obj: t.text, heads: t.heads[2]) == [Mark(start: 1, end: 5, name: "bold", value: .Boolean(true))])
        #expect(try doc.marks(obj: t.text) == [])
        #expect(try doc.marksAt(obj: t.text, position: .index(2), heads: t.heads[1]) == [Mark(start: 2, end: 2, name: "bold", value: .Boolean(true))])

        #expect(try doc.valuesAt(obj: t.list, heads: t.heads[0]) == [.Scalar(.Int(1)), .Scalar(.Int(2))])
        #expect(try doc.valuesAt(obj: t.list, heads: t.heads[1]) == [.Scalar(.Int(3)), .Scalar(.Int(2))])
        #expect(try doc.getAt(obj: t.list, index: 0, heads: t.heads[2]) == .Scalar(.String("bob")))
        #expect(try doc.getAllAt(obj: t.list, index: 0, heads: t.heads[2]).count == 2)

        #expect(doc.keysAt(obj: .ROOT, heads: t.heads[0]) == ["count", "list", "text", "title"])
        #expect(doc.keysAt(obj: .ROOT, heads: t.heads[1]) == ["count", "list", "nested", "text", "title"])
        #expect(doc.keysAt(obj: t.nested, heads: t.heads[2]) == ["a"])
        #expect(doc.keysAt(obj: t.nested, heads: t.heads[3]) == [])
        #expect(doc.lengthAt(obj: .ROOT, heads: t.heads[3]) == 4)
    }

    @Test func readsAtOnePeersHeadSeeOnlyThatBranch() throws {
        let t = try Timeline.make()
        let history = t.doc.getHistory()
        let bobChange = try #require(history.compactMap { t.doc.change(hash: $0) }.first { $0.actorId == actorId(0x02) })
        #expect(try t.doc.getAt(obj: .ROOT, key: "title", heads: [bobChange.hash]) == .Scalar(.String("bob")))
        #expect(try t.doc.getAllAt(obj: .ROOT, key: "title", heads: [bobChange.hash]).count == 1)
        #expect(try t.doc.textAt(obj: t.text, heads: [bobChange.hash]) == "¡help me")
        #expect(try t.doc.getAt(obj: .ROOT, key: "count", heads: [bobChange.hash]) == .Scalar(.Counter(15)))
    }

    @Test func readsAtEmptyHeadsSeeAnEmptyDocument() throws {
        let t = try Timeline.make()
        #expect(t.doc.keysAt(obj: .ROOT, heads: []) == [])
        #expect(t.doc.lengthAt(obj: .ROOT, heads: []) == 0)
        #expect(try t.doc.getAt(obj: .ROOT, key: "title", heads: []) == nil)
        #expect(try t.doc.mapEntriesAt(obj: .ROOT, heads: []).isEmpty)
    }

    @Test func readsAtTheCurrentHeadsEqualCurrentReads() throws {
        let t = try Timeline.make()
        #expect(describe(t.doc, .ROOT, at: t.doc.heads()) == describe(t.doc, .ROOT))
    }

    @Test func readsAtUnknownHeadsThrow() throws {
        let t = try Timeline.make()
        let unknown = try #require(ChangeHash(data: Data(repeating: 0xee, count: 32)))
        let heads = t.heads[1].union([unknown])
        #expect(throws: AutomergeError.unknownHeads([unknown])) { try t.doc.getAt(obj: .ROOT, key: "title", heads: heads) }
        #expect(throws: AutomergeError.unknownHeads([unknown])) { try t.doc.textAt(obj: t.text, heads: heads) }
        #expect(throws: AutomergeError.unknownHeads([unknown])) { try t.doc.valuesAt(obj: t.list, heads: heads) }
        #expect(throws: AutomergeError.unknownHeads([unknown])) { try t.doc.marksAt(obj: t.text, heads: heads) }
        #expect(throws: AutomergeError.unknownHeads([unknown])) { try t.doc.cursor(obj: t.text, position: 0, heads: heads) }
        // The non-throwing reads answer as for an unreadable object.
        #expect(t.doc.keysAt(obj: .ROOT, heads: heads) == [])
        #expect(t.doc.lengthAt(obj: .ROOT, heads: heads) == 0)
    }

    // MARK: History

    @Test func headsAreTheLatestChangeAndGetHistoryListsChangesInOrder() throws {
        let doc = Document.peer(0x01)
        #expect(doc.heads().isEmpty)
        #expect(doc.getHistory().isEmpty)
        try doc.put(obj: .ROOT, key: "a", value: .Int(1))
        doc.commitWith(message: "first")
        let first = doc.heads()
        try doc.put(obj: .ROOT, key: "a", value: .Int(2))
        doc.commitWith(message: "second", timestamp: Date(timeIntervalSince1970: 1_700_000_000.25))
        let second = doc.heads()
        #expect(first.count == 1 && second.count == 1 && first != second)
        #expect(doc.getHistory() == [first.first!, second.first!])

        let change1 = try #require(doc.change(hash: first.first!))
        let change2 = try #require(doc.change(hash: second.first!))
        #expect(change1.actorId == actorId(0x01) && change2.actorId == actorId(0x01))
        #expect(change1.seq == 1 && change2.seq == 2)
        #expect(change1.message == "first" && change2.message == "second")
        #expect(change1.deps.isEmpty)
        #expect(Set(change2.deps) == first)
        #expect(abs(change1.timestamp.timeIntervalSinceNow) < 600, "no timestamp means now, as in automerge-swift")
        #expect(change2.timestamp == Date(timeIntervalSince1970: 1_700_000_000.25))
        #expect(change1.hash == first.first!)
        #expect(doc.change(hash: ChangeHash(data: Data(count: 32))!) == nil)
    }

    @Test func readingHeadsCommitsPendingEdits() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "a", value: .Int(1))
        #expect(doc.pendingOpCount == 1)
        let heads = doc.heads()
        #expect(heads.count == 1)
        #expect(doc.pendingOpCount == 0)
        #expect(doc.getHistory().count == 1)
    }

    @Test func anEmptyMessageIsNoMessage() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "a", value: .Int(1))
        doc.commitWith(message: "")
        #expect(doc.change(hash: doc.heads().first!)?.message == nil)
    }

    @Test func mergingTwoPeersGivesBothTheSameHeadsAndHistorySet() throws {
        let alice = Document.peer(0x01)
        try alice.put(obj: .ROOT, key: "a", value: .Int(1))
        let bob = alice.forkPeer(0x02)
        try alice.put(obj: .ROOT, key: "b", value: .Int(2))
        try bob.put(obj: .ROOT, key: "c", value: .Int(3))
        let aliceHead = alice.committedHeads()
        let bobHead = bob.committedHeads()
        try mergeAll([alice, bob])
        #expect(alice.heads() == aliceHead.union(bobHead))
        #expect(bob.heads() == alice.heads())
        #expect(Set(alice.getHistory()) == Set(bob.getHistory()))
        #expect(alice.getHistory().count == 3)
        // Merging again changes nothing.
        try alice.merge(peer: bob)
        #expect(alice.getHistory().count == 3)
    }

    @Test
    func forkAtReproducesTheStateAtThoseHeads() throws {
        let t = try Timeline.make()
        for (heads, state) in zip(t.heads, t.states) {
            let copy = try t.doc.forkAt(heads: heads)
            #expect(describe(copy, .ROOT) == state)
            #expect(copy.heads() == heads)
            #expect(copy.actor != t.doc.actor)
        }
    }

    @Test func forkAtUnknownHeadsThrows() throws {
        let t = try Timeline.make()
        let unknown = try #require(ChangeHash(data: Data(repeating: 0xee, count: 32)))
        #expect(throws: AutomergeError.unknownHeads([unknown])) { try t.doc.forkAt(heads: [unknown]) }
    }

    @Test func aForkIsIndependentAndHasANewActor() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "a", value: .Int(1))
        let copy = doc.fork()
        #expect(copy.actor != doc.actor)
        #expect(copy.heads() == doc.heads())
        try copy.put(obj: .ROOT, key: "a", value: .Int(2))
        #expect(try doc.get(obj: .ROOT, key: "a") == .Scalar(.Int(1)))
        #expect(try copy.get(obj: .ROOT, key: "a") == .Scalar(.Int(2)))
    }
}

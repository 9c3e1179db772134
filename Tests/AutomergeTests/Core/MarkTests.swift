import Foundation
import Testing
@testable import Automerge

private let bold = ScalarValue.Boolean(true)

private func boldMark(_ start: UInt64, _ end: UInt64) -> Mark {
    Mark(start: start, end: end, name: "bold", value: bold)
}

/// Expected marks after typing "X" at the start and "Y" at the end of a mark
/// over "b" in "abc" (giving "aXbYc"). Peritext rules: the insertion point
/// moves past a begin anchor with expand=true (`.before`, `.both`) and past an
/// end anchor with expand=false (`.before`, `.none`).
private let boundaryCases: [(ExpandMark, Mark)] = [
    (.before, boldMark(1, 3)),  // "Xb"
    (.after, boldMark(2, 4)),  // "bY"
    (.both, boldMark(1, 4)),  // "XbY"
    (.none, boldMark(2, 3)),  // "b"
]

@Suite("Marks")
struct MarkTests {

    @Test func markCoversTheRange() throws {
        let (doc, text) = try textDocument("hello world")
        try doc.mark(obj: text, start: 0, end: 5, expand: .after, name: "bold", value: bold)
        try doc.mark(obj: text, start: 6, end: 11, expand: .none, name: "link", value: .String("https://example.com"))
        #expect(try doc.marks(obj: text) == [
            boldMark(0, 5), Mark(start: 6, end: 11, name: "link", value: .String("https://example.com")),
        ])
        // Marks take no text positions.
        #expect(try doc.text(obj: text) == "hello world")
        #expect(doc.length(obj: text) == 11)
    }

    @Test func marksAreListedByStartThenName() throws {
        let (doc, text) = try textDocument("abcdef")
        try doc.mark(obj: text, start: 2, end: 4, expand: .none, name: "b", value: bold)
        try doc.mark(obj: text, start: 0, end: 6, expand: .none, name: "z", value: bold)
        try doc.mark(obj: text, start: 0, end: 3, expand: .none, name: "a", value: bold)
        let marks = try doc.marks(obj: text)
        #expect(marks.map(\.name) == ["a", "z", "b"])
        #expect(marks.map(\.start) == [0, 0, 2])
    }

    @Test(arguments: boundaryCases)
    func typingAtTheMarkBoundariesFollowsTheExpandSetting(_ expand: ExpandMark, _ expected: Mark) throws {
        let (doc, text) = try textDocument("abc")
        try doc.mark(obj: text, start: 1, end: 2, expand: expand, name: "bold", value: bold)
        try doc.spliceText(obj: text, start: 2, delete: 0, value: "Y")
        try doc.spliceText(obj: text, start: 1, delete: 0, value: "X")
        #expect(try doc.text(obj: text) == "aXbYc")
        #expect(try doc.marks(obj: text) == [expected])
    }

    @Test(arguments: boundaryCases)
    func expandBehavesTheSameOnAPeerThatReceivedTheMark(_ expand: ExpandMark, _ expected: Mark) throws {
        let (alice, text) = try textDocument("abc")
        let bob = alice.forkPeer(0x02)
        try alice.mark(obj: text, start: 1, end: 2, expand: expand, name: "bold", value: bold)
        try bob.merge(peer: alice)
        try bob.spliceText(obj: text, start: 2, delete: 0, value: "Y")
        try bob.spliceText(obj: text, start: 1, delete: 0, value: "X")
        try alice.merge(peer: bob)
        for doc in [alice, bob] {
            #expect(try doc.text(obj: text) == "aXbYc")
            #expect(try doc.marks(obj: text) == [expected])
        }
    }

    @Test(arguments: boundaryCases.map(\.0))
    func typingInsideAMarkIsAlwaysCovered(_ expand: ExpandMark) throws {
        let (doc, text) = try textDocument("abcd")
        try doc.mark(obj: text, start: 1, end: 3, expand: expand, name: "bold", value: bold)
        try doc.spliceText(obj: text, start: 2, delete: 0, value: "XY")
        #expect(try doc.text(obj: text) == "abXYcd")
        #expect(try doc.marks(obj: text) == [boldMark(1, 5)])
    }

    @Test func aMarkAtTheEndOfTheTextGrowsWithAppendedTextOnlyWhenItExpandsAfter() throws {
        for (expand, end) in [(ExpandMark.after, UInt64(4)), (.both, 4), (.before, 3), (.none, 3)] {
            let (doc, text) = try textDocument("abc")
            try doc.mark(obj: text, start: 0, end: 3, expand: expand, name: "bold", value: bold)
            try doc.spliceText(obj: text, start: 3, delete: 0, value: "d")
            #expect(try doc.marks(obj: text) == [boldMark(0, end)], "\(expand)")
        }
    }

    @Test func aMarkAtTheStartOfTheTextGrowsWithPrependedTextOnlyWhenItExpandsBefore() throws {
        for (expand, covered) in [(ExpandMark.before, true), (.both, true), (.after, false), (.none, false)] {
            let (doc, text) = try textDocument("abc")
            try doc.mark(obj: text, start: 0, end: 3, expand: expand, name: "bold", value: bold)
            try doc.spliceText(obj: text, start: 0, delete: 0, value: "_")
            #expect(try doc.marks(obj: text) == [covered ? boldMark(0, 4) : boldMark(1, 4)], "\(expand)")
        }
    }

    @Test func deletingMarkedTextShrinksTheMarkAndDeletingAllOfItRemovesIt() throws {
        let (doc, text) = try textDocument("abcdef")
        try doc.mark(obj: text, start: 1, end: 4, expand: .after, name: "bold", value: bold)
        try doc.spliceText(obj: text, start: 2, delete: 1)
        #expect(try doc.marks(obj: text) == [boldMark(1, 3)])
        try doc.spliceText(obj: text, start: 1, delete: 2)
        #expect(try doc.marks(obj: text) == [])
        #expect(try doc.text(obj: text) == "aef")
    }

    @Test func unmarkWithANullValueRemovesTheMarkFromTheRange() throws {
        let (doc, text) = try textDocument("hello")
        try doc.mark(obj: text, start: 0, end: 5, expand: .after, name: "bold", value: bold)
        try doc.mark(obj: text, start: 1, end: 3, expand: .after, name: "bold", value: .Null)
        #expect(try doc.marks(obj: text) == [boldMark(0, 1), boldMark(3, 5)])
        // Other names are untouched.
        try doc.mark(obj: text, start: 0, end: 5, expand: .none, name: "italic", value: bold)
        try doc.mark(obj: text, start: 0, end: 5, expand: .none, name: "bold", value: .Null)
        #expect(try doc.marks(obj: text) == [Mark(start: 0, end: 5, name: "italic", value: bold)])
    }

    @Test func aLaterMarkOfTheSameNameOverridesTheValueWhereTheyOverlap() throws {
        let (doc, text) = try textDocument("abcdef")
        try doc.mark(obj: text, start: 0, end: 4, expand: .none, name: "color", value: .String("red"))
        try doc.mark(obj: text, start: 2, end: 6, expand: .none, name: "color", value: .String("blue"))
        #expect(try doc.marks(obj: text) == [
            Mark(start: 0, end: 2, name: "color", value: .String("red")),
            Mark(start: 2, end: 6, name: "color", value: .String("blue")),
        ])
        // Same value again next to it: one span.
        try doc.mark(obj: text, start: 0, end: 2, expand: .none, name: "color", value: .String("blue"))
        #expect(try doc.marks(obj: text) == [Mark(start: 0, end: 6, name: "color", value: .String("blue"))])
    }

    /// The mark set at one position, as Rust's `get_marks` and automerge-swift
    /// give it: each mark covering it as the empty range there, by name.
    @Test func marksAtAPositionAreTheMarksCoveringIt() throws {
        let (doc, text) = try textDocument("abcdef")
        try doc.mark(obj: text, start: 2, end: 5, expand: .none, name: "italic", value: bold)
        try doc.mark(obj: text, start: 0, end: 3, expand: .none, name: "bold", value: bold)
        #expect(try doc.marksAt(obj: text, position: .index(0)) == [boldMark(0, 0)])
        #expect(try doc.marksAt(obj: text, position: .index(2)) == [boldMark(2, 2), Mark(start: 2, end: 2, name: "italic", value: bold)])
        #expect(try doc.marksAt(obj: text, position: .index(3)) == [Mark(start: 3, end: 3, name: "italic", value: bold)])
        #expect(try doc.marksAt(obj: text, position: .index(5)) == [])
        let cursor = try doc.cursor(obj: text, position: 1)
        #expect(try doc.marksAt(obj: text, position: .cursor(cursor)) == [boldMark(1, 1)])
    }

    @Test func aZeroLengthMarkThatDoesNotExpandMakesNoOps() throws {
        let (doc, text) = try textDocument("abc")
        try doc.mark(obj: text, start: 1, end: 1, expand: .none, name: "bold", value: bold)
        #expect(doc.pendingOpCount == 0)
        #expect(try doc.marks(obj: text) == [])
    }

    @Test func aZeroLengthMarkNeverCoversTextTypedAtIt() throws {
        // Even with .both the two anchors sit side by side, and an insertion
        // point never goes between a begin anchor and its own end anchor.
        let (doc, text) = try textDocument("abc")
        try doc.mark(obj: text, start: 1, end: 1, expand: .both, name: "bold", value: bold)
        #expect(doc.pendingOpCount == 2)
        #expect(try doc.marks(obj: text) == [])
        try doc.spliceText(obj: text, start: 1, delete: 0, value: "X")
        #expect(try doc.text(obj: text) == "aXbc")
        #expect(try doc.marks(obj: text) == [])
    }

    // MARK: Merging

    @Test func marksFromTwoPeersAreBothPresentAfterMerging() throws {
        let (alice, text) = try textDocument("hello world")
        let bob = alice.forkPeer(0x02)
        try alice.mark(obj: text, start: 0, end: 5, expand: .after, name: "bold", value: bold)
        try bob.mark(obj: text, start: 6, end: 11, expand: .after, name: "italic", value: bold)
        try mergeAll([alice, bob])
        for doc in [alice, bob] {
            #expect(try doc.marks(obj: text) == [boldMark(0, 5), Mark(start: 6, end: 11, name: "italic", value: bold)])
        }
    }

    @Test func concurrentMarksOfOneNameResolveOverlapsByOpId() throws {
        let (alice, text) = try textDocument("abcdef")
        let bob = alice.forkPeer(0x02)
        try alice.mark(obj: text, start: 0, end: 4, expand: .none, name: "link", value: .String("alice"))
        try bob.mark(obj: text, start: 2, end: 6, expand: .none, name: "link", value: .String("bob"))
        try mergeAll([alice, bob])
        // Both begin ops have the same counter; bob's actor is higher, so his value wins the overlap.
        for doc in [alice, bob] {
            #expect(try doc.marks(obj: text) == [
                Mark(start: 0, end: 2, name: "link", value: .String("alice")),
                Mark(start: 2, end: 6, name: "link", value: .String("bob")),
            ])
        }
    }

    @Test func anUnmarkConcurrentWithAMarkResolvesTheirOverlapByOpId() throws {
        let (alice, text) = try textDocument("abcdef")
        try alice.mark(obj: text, start: 0, end: 6, expand: .none, name: "bold", value: bold)
        let bob = alice.forkPeer(0x02)
        try alice.mark(obj: text, start: 0, end: 3, expand: .none, name: "bold", value: .Null)  // 10@01
        try bob.mark(obj: text, start: 2, end: 6, expand: .none, name: "bold", value: bold)  // 10@02 wins on 2..<3
        try mergeAll([alice, bob])
        for doc in [alice, bob] { #expect(try doc.marks(obj: text) == [boldMark(2, 6)]) }
    }

    @Test func textTypedConcurrentlyInsideAMarkIsCovered() throws {
        let (alice, text) = try textDocument("abcdef")
        let bob = alice.forkPeer(0x02)
        try alice.mark(obj: text, start: 1, end: 5, expand: .none, name: "bold", value: bold)
        try bob.spliceText(obj: text, start: 3, delete: 0, value: "XYZ")
        try mergeAll([alice, bob])
        for doc in [alice, bob] {
            #expect(try doc.text(obj: text) == "abcXYZdef")
            #expect(try doc.marks(obj: text) == [boldMark(1, 8)])
        }
    }
}

import Foundation
import Testing
@testable import Automerge

/// "a" + grinning face + flag (two regional indicators) + family (three
/// people joined by two ZWJs) + "e" with a combining acute accent.
private let sample = "a\u{1F600}\u{1F1EF}\u{1F1F5}\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}e\u{301}"
private let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}"

/// Per encoding: the length of `sample`, its element count, the offset just
/// after the flag, and the width of the family emoji.
private struct EncodingCase: Sendable, CustomTestStringConvertible {
    var encoding: TextEncoding
    var length: UInt64
    var elements: Int
    var afterFlag: UInt64
    var familyWidth: Int64
    var flagWidth: Int64
    var testDescription: String { "\(encoding)" }
}

private let encodingCases: [EncodingCase] = [
    // scalars: a 1, 😀 1, flag 2, family 5, e+◌́ 2
    EncodingCase(encoding: .unicodeScalar, length: 11, elements: 11, afterFlag: 4, familyWidth: 5, flagWidth: 2),
    // UTF-8 bytes: 1, 4, 8, 18, 3
    EncodingCase(encoding: .utf8, length: 34, elements: 11, afterFlag: 13, familyWidth: 18, flagWidth: 8),
    // UTF-16 code units: 1, 2, 4, 8, 2
    EncodingCase(encoding: .utf16, length: 17, elements: 11, afterFlag: 7, familyWidth: 8, flagWidth: 4),
    // Grapheme clusters: 1 each
    EncodingCase(encoding: .graphemeCluster, length: 5, elements: 5, afterFlag: 3, familyWidth: 1, flagWidth: 1),
]

@Suite("Text")
struct TextTests {

    // MARK: Basics

    @Test func spliceTextInsertsAndDeletesAtPositions() throws {
        let (doc, text) = try textDocument("hello world")
        try doc.spliceText(obj: text, start: 5, delete: 6, value: ", there")
        #expect(try doc.text(obj: text) == "hello, there")
        try doc.spliceText(obj: text, start: 0, delete: 1, value: "H")
        #expect(try doc.text(obj: text) == "Hello, there")
        try doc.spliceText(obj: text, start: 12, delete: 0, value: "!")
        #expect(try doc.text(obj: text) == "Hello, there!")
        try doc.spliceText(obj: text, start: 5, delete: 7)
        #expect(try doc.text(obj: text) == "Hello!")
        #expect(doc.length(obj: text) == 6)
    }

    @Test func spliceTextWithANegativeDeleteRemovesTextBeforeTheStart() throws {
        let (doc, text) = try textDocument("abcdef")
        try doc.spliceText(obj: text, start: 4, delete: -2, value: "X")
        #expect(try doc.text(obj: text) == "abXef")
    }

    @Test func deleteAtAnIndexRemovesOneCharacter() throws {
        let (doc, text) = try textDocument("abc")
        try doc.delete(obj: text, index: 1)
        #expect(try doc.text(obj: text) == "ac")
    }

    @Test func textElementsReadAsOneCharacterStrings() throws {
        let (doc, text) = try textDocument("hé")
        #expect(try doc.get(obj: text, index: 1) == .Scalar(.String("é")))
        #expect(try doc.values(obj: text) == [.Scalar(.String("h")), .Scalar(.String("é"))])
    }

    @Test func nonStringElementsReadAsTheObjectReplacementCharacter() throws {
        let (doc, text) = try textDocument("ab")
        try doc.insert(obj: text, index: 1, value: .Int(7))
        #expect(try doc.text(obj: text) == "a\u{FFFC}b")
        #expect(doc.length(obj: text) == 3)
    }

    @Test func concurrentTypingAtOnePositionConvergesByOpId() throws {
        let (base, text) = try textDocument("ac")
        let alice = base.forkPeer(0x01)
        let bob = base.forkPeer(0x02)
        try alice.spliceText(obj: text, start: 1, delete: 0, value: "AA")
        try bob.spliceText(obj: text, start: 1, delete: 0, value: "BB")
        try mergeAll([alice, bob])
        // Bob's first character has the higher op id (same counter, actor 02): his run goes first.
        #expect(try alice.text(obj: text) == "aBBAAc")
        #expect(try bob.text(obj: text) == "aBBAAc")
    }

    @Test func concurrentDeleteAndTypeInsideTheDeletedRangeKeepTheTypedText() throws {
        let (base, text) = try textDocument("abcdef")
        let alice = base.forkPeer(0x01)
        let bob = base.forkPeer(0x02)
        try alice.spliceText(obj: text, start: 1, delete: 4)
        try bob.spliceText(obj: text, start: 3, delete: 0, value: "X")
        try mergeAll([alice, bob])
        for doc in [alice, bob] { #expect(try doc.text(obj: text) == "aXf") }
    }

    // MARK: Encodings

    @Test(arguments: encodingCases)
    fileprivate func lengthsCountTheDocumentsTextUnits(_ c: EncodingCase) throws {
        let (doc, text) = try textDocument(sample, encoding: c.encoding)
        #expect(doc.textEncoding == c.encoding)
        #expect(doc.length(obj: text) == c.length)
        #expect(scalars(try doc.text(obj: text)) == scalars(sample))
    }

    @Test(arguments: encodingCases)
    fileprivate func textIsStoredAsOneElementPerScalarExceptForGraphemeClusters(_ c: EncodingCase) throws {
        let (doc, text) = try textDocument(sample, encoding: c.encoding)
        let elements = try doc.values(obj: text)
        #expect(elements.count == c.elements)
        let expected: [String] = c.encoding == .graphemeCluster
            ? sample.map { String($0) }
            : sample.unicodeScalars.map { String($0) }
        #expect(elements.map { value -> [Unicode.Scalar] in
            guard case .Scalar(.String(let s)) = value else { return [] }
            return scalars(s)
        } == expected.map(scalars))
    }

    @Test(arguments: encodingCases)
    fileprivate func spliceTextPositionsAreInTheDocumentsUnits(_ c: EncodingCase) throws {
        let (doc, text) = try textDocument(sample, encoding: c.encoding)
        try doc.spliceText(obj: text, start: c.afterFlag, delete: 0, value: "X")
        #expect(scalars(try doc.text(obj: text)) == scalars("a\u{1F600}\u{1F1EF}\u{1F1F5}X\(family)e\u{301}"))
        #expect(doc.length(obj: text) == c.length + 1)
        // Delete the family emoji, which now starts one unit later.
        try doc.spliceText(obj: text, start: c.afterFlag + 1, delete: c.familyWidth)
        #expect(scalars(try doc.text(obj: text)) == scalars("a\u{1F600}\u{1F1EF}\u{1F1F5}Xe\u{301}"))
        // Replace the flag with a multi-scalar string.
        try doc.spliceText(obj: text, start: c.afterFlag - UInt64(c.flagWidth), delete: c.flagWidth, value: family)
        #expect(scalars(try doc.text(obj: text)) == scalars("a\u{1F600}\(family)Xe\u{301}"))
        #expect(doc.length(obj: text) == c.length + 1 - UInt64(c.flagWidth))
    }

    @Test(arguments: encodingCases)
    fileprivate func cursorsAndMarksUseTheDocumentsUnits(_ c: EncodingCase) throws {
        let (doc, text) = try textDocument(sample, encoding: c.encoding)
        try doc.mark(obj: text, start: c.afterFlag, end: c.afterFlag + UInt64(c.familyWidth), expand: .none, name: "b", value: .Boolean(true))
        #expect(try doc.marks(obj: text) == [Mark(start: c.afterFlag, end: c.afterFlag + UInt64(c.familyWidth), name: "b", value: .Boolean(true))])
        let cursor = try doc.cursor(obj: text, position: c.afterFlag)
        try doc.spliceText(obj: text, start: 0, delete: 1)
        #expect(try doc.position(obj: text, cursor: cursor) == c.afterFlag - 1)
    }

    @Test func combiningMarksAreSeparateScalarsButOneGrapheme() throws {
        let decomposed = "e\u{301}"
        let (scalarDoc, scalarText) = try textDocument(decomposed, encoding: .unicodeScalar)
        #expect(scalarDoc.length(obj: scalarText) == 2)
        // The text keeps the decomposed form (not normalised to U+00E9).
        #expect(scalars(try scalarDoc.text(obj: scalarText)) == ["e", "\u{301}"])
        let (graphemeDoc, graphemeText) = try textDocument(decomposed, encoding: .graphemeCluster)
        #expect(graphemeDoc.length(obj: graphemeText) == 1)
        #expect(scalars(try graphemeDoc.text(obj: graphemeText)) == ["e", "\u{301}"])
        // Deleting the one grapheme deletes both scalars.
        try graphemeDoc.spliceText(obj: graphemeText, start: 0, delete: 1)
        #expect(try graphemeDoc.text(obj: graphemeText) == "")
    }

    // MARK: updateText

    @Test func updateTextProducesTheTargetText() throws {
        let (doc, text) = try textDocument("The quick brown fox")
        for target in ["The quick red fox", "A quick red fox jumps", "", "👨‍👩‍👧 family", "e\u{301}t\u{E9}"] {
            try doc.updateText(obj: text, value: target)
            #expect(scalars(try doc.text(obj: text)) == scalars(target))
        }
    }

    @Test func updateTextMakesMinimalEditsForAOneCharacterChange() throws {
        let long = String(repeating: "All work and no play makes Jack a dull boy. ", count: 200)
        var changed = Array(long)
        changed[4_000] = "X"
        let (doc, text) = try textDocument(long)
        try doc.updateText(obj: text, value: String(changed))
        // One insert and one delete, not a rewrite of 8,800 characters.
        #expect(doc.pendingOpCount == 2)
        #expect(try doc.text(obj: text) == String(changed))

        doc.commitChange()
        try doc.updateText(obj: text, value: String(changed) + "!")
        #expect(doc.pendingOpCount == 1)
        doc.commitChange()
        try doc.updateText(obj: text, value: String(changed) + "!")
        #expect(doc.pendingOpCount == 0, "an unchanged text makes no ops")
    }

    @Test func updateTextEditsWholeGraphemes() throws {
        let (doc, text) = try textDocument("a\(family)b")
        // Changing the last person of the family replaces the whole grapheme (5 scalars) with the new one (5 scalars).
        try doc.updateText(obj: text, value: "a\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F466}b")
        #expect(doc.pendingOpCount == 10)
        #expect(scalars(try doc.text(obj: text)) == scalars("a\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F466}b"))
    }

    @Test(arguments: [TextEncoding.unicodeScalar, .utf8, .utf16, .graphemeCluster])
    func updateTextWorksInEveryEncoding(_ encoding: TextEncoding) throws {
        let (doc, text) = try textDocument(sample, encoding: encoding)
        let target = "a\u{1F1EF}\u{1F1F5}Z\(family)e\u{301}!"
        try doc.updateText(obj: text, value: target)
        #expect(scalars(try doc.text(obj: text)) == scalars(target))
    }
}

/// A loaded document's lengths come from unit counts summed once after the
/// load (the load itself leaves them alone): they must match the live
/// document's, in every encoding, with deletions, wide characters and list
/// elements that were overwritten, across many leaves of the tree.
@Suite("Loaded lengths")
struct LoadedLengthTests {
    @Test(arguments: [TextEncoding.unicodeScalar, .utf8, .utf16, .graphemeCluster])
    func loadedLengthsAndPositionsMatchTheLiveDocument(_ encoding: TextEncoding) throws {
        let doc = Document(textEncoding: encoding)
        let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        for round in 0..<300 {
            try doc.spliceText(obj: text, start: doc.length(obj: text), delete: 0, value: "ab\(sample) ")
            if round % 3 == 0 { try doc.spliceText(obj: text, start: UInt64(round), delete: 2, value: "") }
            try doc.insert(obj: list, index: doc.length(obj: list), value: .Int(Int64(round)))
            if round % 4 == 0 { try doc.put(obj: list, index: UInt64(round / 2), value: .String("x")) }
            if round % 5 == 0 { try doc.delete(obj: list, index: 0) }
        }
        let loaded = try Document(doc.save(), textEncoding: encoding)
        #expect(loaded.length(obj: text) == doc.length(obj: text))
        #expect(loaded.length(obj: list) == doc.length(obj: list))
        #expect(try loaded.text(obj: text) == doc.text(obj: text))
        #expect(try loaded.values(obj: list) == doc.values(obj: list))
        // Positions resolve through the summed counts (a position inside a
        // wide character names the character's start, in both).
        for position in stride(from: UInt64(0), to: doc.length(obj: text), by: 97) {
            let cursor = try doc.cursor(obj: text, position: position)
            #expect(try loaded.position(obj: text, cursor: cursor) == doc.position(obj: text, cursor: cursor))
        }
        // And edits after the load keep them right.
        try loaded.spliceText(obj: text, start: loaded.length(obj: text), delete: 0, value: family)
        try doc.spliceText(obj: text, start: doc.length(obj: text), delete: 0, value: family)
        #expect(loaded.length(obj: text) == doc.length(obj: text))
    }
}

import Foundation
import Testing
@testable import Automerge

@Suite("Cursors")
struct CursorTests {

    // MARK: Following edits

    @Test func aCursorNamesTheElementAtItsPosition() throws {
        // "hello": the text object is 1@01, its characters 2@01...6@01.
        let (doc, text) = try textDocument("hello")
        let cursor = try doc.cursor(obj: text, position: 2)
        #expect(cursor.string == "4@01")
        #expect(try doc.position(obj: text, cursor: cursor) == 2)
        #expect(try doc.cursorPosition(obj: text, cursor: cursor) == 2)
    }

    @Test func aCursorFollowsLocalInsertsAndDeletesBeforeIt() throws {
        let (doc, text) = try textDocument("hello")
        let cursor = try doc.cursor(obj: text, position: 4)  // "o"
        try doc.spliceText(obj: text, start: 0, delete: 0, value: ">> ")
        #expect(try doc.position(obj: text, cursor: cursor) == 7)
        try doc.spliceText(obj: text, start: 0, delete: 5)
        #expect(try doc.position(obj: text, cursor: cursor) == 2)
        // Edits after the cursor do not move it.
        try doc.spliceText(obj: text, start: 3, delete: 0, value: "!!!")
        #expect(try doc.position(obj: text, cursor: cursor) == 2)
    }

    @Test func aCursorFollowsAnInsertMadeBeforeItOnAnotherPeer() throws {
        let (alice, text) = try textDocument("hello world")
        let bob = alice.forkPeer(0x02)
        let cursor = try alice.cursor(obj: text, position: 6)  // "w"
        try bob.spliceText(obj: text, start: 0, delete: 0, value: "Oh, ")
        try bob.spliceText(obj: text, start: 15, delete: 0, value: "!")  // after the cursor
        try alice.merge(peer: bob)
        #expect(try alice.text(obj: text) == "Oh, hello world!")
        #expect(try alice.position(obj: text, cursor: cursor) == 10)
        // The same cursor resolves on the other peer too.
        #expect(try bob.position(obj: text, cursor: cursor) == 10)
    }

    @Test func aCursorSurvivesAConcurrentInsertAtItsOwnPosition() throws {
        let (alice, text) = try textDocument("ab")
        let bob = alice.forkPeer(0x02)
        let cursor = try alice.cursor(obj: text, position: 1)  // "b"
        try bob.spliceText(obj: text, start: 1, delete: 0, value: "XYZ")
        try alice.merge(peer: bob)
        #expect(try alice.text(obj: text) == "aXYZb")
        #expect(try alice.position(obj: text, cursor: cursor) == 4)
    }

    @Test func aCursorOnAListFollowsEdits() throws {
        let doc = Document.peer(0x01)
        let list = try doc.putObject(obj: .ROOT, key: "l", ty: .List)
        for i in 0..<5 { try doc.insert(obj: list, index: UInt64(i), value: .Int(Int64(i))) }
        let cursor = try doc.cursor(obj: list, position: 3)
        try doc.delete(obj: list, index: 0)
        try doc.insert(obj: list, index: 0, value: .Null)
        try doc.insert(obj: list, index: 0, value: .Null)
        #expect(try doc.position(obj: list, cursor: cursor) == 4)
        #expect(try doc.get(obj: list, index: 4) == .Scalar(.Int(3)))
    }

    // MARK: Deleted elements and the ends

    @Test func aCursorOnADeletedElementResolvesToTheNextElement() throws {
        let (doc, text) = try textDocument("hello")
        let cursor = try doc.cursor(obj: text, position: 2)  // first "l"
        try doc.spliceText(obj: text, start: 1, delete: 2)  // "hlo"
        #expect(try doc.position(obj: text, cursor: cursor) == 1)
        #expect(try doc.text(obj: text) == "hlo")
    }

    @Test func aMoveBeforeCursorOnADeletedElementResolvesToThePreviousElement() throws {
        let (doc, text) = try textDocument("hello")
        let cursor = try #require(Cursor(string: "-4@01"))  // first "l", moving before when deleted
        #expect(try doc.position(obj: text, cursor: cursor) == 2)
        try doc.spliceText(obj: text, start: 2, delete: 1)  // "helo"
        #expect(try doc.position(obj: text, cursor: cursor) == 1)
        try doc.spliceText(obj: text, start: 0, delete: 2)  // "lo"
        #expect(try doc.position(obj: text, cursor: cursor) == 0)
    }

    @Test func aCursorDeletedConcurrentlyOnAnotherPeerResolvesToTheNextElement() throws {
        let (alice, text) = try textDocument("abcdef")
        let bob = alice.forkPeer(0x02)
        let cursor = try alice.cursor(obj: text, position: 3)  // "d"
        try bob.spliceText(obj: text, start: 2, delete: 3)  // "abf"
        try alice.merge(peer: bob)
        #expect(try alice.position(obj: text, cursor: cursor) == 2)
    }

    @Test func aCursorAtTheEndStaysAtTheEnd() throws {
        let (doc, text) = try textDocument("abc")
        let end = try doc.cursor(obj: text, position: 3)
        #expect(end.string == "e")
        try doc.spliceText(obj: text, start: 3, delete: 0, value: "def")
        #expect(try doc.position(obj: text, cursor: end) == 6)
        try doc.spliceText(obj: text, start: 0, delete: 6)
        #expect(try doc.position(obj: text, cursor: end) == 0)
    }

    @Test func theStartCursorIsAlwaysZero() throws {
        let (doc, text) = try textDocument("abc")
        let start = try #require(Cursor(string: "s"))
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "xyz")
        #expect(try doc.position(obj: text, cursor: start) == 0)
    }

    @Test func cursorsAtEarlierHeadsUseTheTextOfThoseHeads() throws {
        let (doc, text) = try textDocument("abc")
        let heads = doc.committedHeads()
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "123")
        let cursor = try doc.cursor(obj: text, position: 1, heads: heads)  // "b" then
        #expect(cursor.string == "3@01")
        #expect(try doc.position(obj: text, cursor: cursor, heads: heads) == 1)
        #expect(try doc.cursorPositionAt(obj: text, cursor: cursor, heads: heads) == 1)
        #expect(try doc.position(obj: text, cursor: cursor) == 4)
    }

    @Test func aCursorForAnElementTheDocumentLacksIsInvalid() throws {
        let (doc, text) = try textDocument("abc")
        for string in ["99@01", "2@7777", "0@01"] {
            let cursor = try #require(Cursor(string: string))
            let error = #expect(throws: AutomergeError.self) { try doc.position(obj: text, cursor: cursor) }
            guard case .invalidCursor = error else {
                Issue.record("expected invalidCursor for \(string), got \(String(describing: error))")
                continue
            }
        }
    }

    @Test func aCursorPastTheEndIsOutOfBounds() throws {
        let (doc, text) = try textDocument("abc")
        let error = #expect(throws: AutomergeError.self) { try doc.cursor(obj: text, position: 4) }
        #expect(error == .indexOutOfBounds(index: 4, length: 3))
    }

    // MARK: String and binary forms

    @Test func stringFormsRoundTrip() throws {
        let actor = try #require(ActorId(data: Data("mock_actor_id".utf8)))
        let cases: [(Cursor.Anchor, String)] = [
            (.start, "s"),
            (.end, "e"),
            (.element(counter: 42, actor: actor, before: false), "42@6d6f636b5f6163746f725f6964"),
            (.element(counter: 123, actor: actor, before: true), "-123@6d6f636b5f6163746f725f6964"),
        ]
        for (anchor, string) in cases {
            let cursor = Cursor(anchor: anchor)
            #expect(cursor.string == string)
            #expect(Cursor(string: string) == cursor)
        }
    }

    @Test func malformedStringsDoNotParse() {
        for string in ["", "x", "S", "42", "42@", "@01", "-@01", "abc@01", "42@0", "42@zz", "4 2@01", "--4@01"] {
            #expect(Cursor(string: string) == nil, "\(string)")
        }
    }

    @Test func binaryFormsAreVersionOneWithTaggedVariants() throws {
        #expect(Cursor(anchor: .start).bytes == Data([1, 1]))
        #expect(Cursor(anchor: .end).bytes == Data([1, 2]))
        // version 1, op tag 3, actor length 1, actor 0xab, counter 300 (LEB 0xac 0x02), move: 2 = after, 1 = before
        #expect(Cursor(anchor: .element(counter: 300, actor: actorId(0xab), before: false)).bytes == Data([1, 3, 1, 0xab, 0xac, 0x02, 2]))
        #expect(Cursor(anchor: .element(counter: 300, actor: actorId(0xab), before: true)).bytes == Data([1, 3, 1, 0xab, 0xac, 0x02, 1]))
    }

    @Test func binaryFormsRoundTrip() throws {
        let (doc, text) = try textDocument("hello")
        let cursors = [
            try doc.cursor(obj: text, position: 0), try doc.cursor(obj: text, position: 5),
            Cursor(anchor: .start), Cursor(anchor: .element(counter: 123_456, actor: actorId(7), before: true)),
            Cursor(anchor: .element(counter: 0, actor: ActorId(data: Data(repeating: 0x5a, count: 16))!, before: false)),
        ]
        for cursor in cursors {
            #expect(Cursor(bytes: cursor.bytes) == cursor)
            #expect(Cursor(string: cursor.string) == cursor)
        }
    }

    @Test func versionZeroBytesParseAsMoveAfterCursors() {
        // version 0: actor length, actor, counter; no tag and no move byte.
        #expect(Cursor(bytes: Data([0, 1, 0x01, 42])) == Cursor(anchor: .element(counter: 42, actor: actorId(1), before: false)))
    }

    @Test func malformedBytesDoNotParse() {
        for bytes: [UInt8] in [[], [2, 1], [1], [1, 99], [1, 3, 5], [1, 3, 1, 0x01, 4], [1, 3, 1, 0x01, 4, 3], [0, 2, 1]] {
            #expect(Cursor(bytes: Data(bytes)) == nil, "\(bytes)")
        }
    }
}

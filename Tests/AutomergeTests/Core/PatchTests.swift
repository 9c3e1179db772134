import Foundation
import Testing
@testable import Automerge

/// Patches describe how the visible state changed, so a view can follow a
/// merge without re-reading the document. Applying the patches in order to
/// the old state yields the new state.
@Suite("Patches")
struct PatchTests {
    @Test func mergeReportsPutsOfNewKeysWithTheirPath() throws {
        let alice = Document.peer(0x01)
        let bob = alice.forkPeer(0x02)
        let nested = try bob.putObject(obj: .ROOT, key: "config", ty: .Map)
        try bob.put(obj: nested, key: "theme", value: .String("dark"))
        let patches = try alice.mergeWithPatches(other: bob)
        #expect(patches == [
            Patch(action: .Put(.ROOT, .Key("config"), .Object(nested, .Map)), path: []),
            Patch(action: .Put(nested, .Key("theme"), .Scalar(.String("dark"))), path: [PathElement(obj: .ROOT, prop: .Key("config"))]),
        ])
    }

    @Test func deletedKeysAndOverwrittenValues() throws {
        let alice = Document.peer(0x01)
        try alice.put(obj: .ROOT, key: "a", value: .Int(1))
        try alice.put(obj: .ROOT, key: "b", value: .Int(2))
        let bob = alice.forkPeer(0x02)
        try bob.delete(obj: .ROOT, key: "a")
        try bob.put(obj: .ROOT, key: "b", value: .Int(3))
        let patches = try alice.mergeWithPatches(other: bob)
        #expect(patches == [
            Patch(action: .DeleteMap(.ROOT, "a"), path: []),
            Patch(action: .Put(.ROOT, .Key("b"), .Scalar(.Int(3))), path: []),
        ])
    }

    @Test func textSplicesAndDeletionsUseIndicesValidInOrder() throws {
        let alice = Document.peer(0x01)
        let text = try alice.putObject(obj: .ROOT, key: "text", ty: .Text)
        try alice.spliceText(obj: text, start: 0, delete: 0, value: "hello world")
        let bob = alice.forkPeer(0x02)
        try bob.spliceText(obj: text, start: 0, delete: 1, value: "J")   // "Jello world"
        try bob.spliceText(obj: text, start: 5, delete: 6, value: "")     // "Jello"
        let patches = try alice.mergeWithPatches(other: bob)
        let path = [PathElement(obj: .ROOT, prop: .Key("text"))]
        #expect(patches == [
            Patch(action: .SpliceText(obj: text, index: 0, value: "J", marks: [:]), path: path),
            Patch(action: .DeleteSeq(DeleteSeq(obj: text, index: 1, length: 1)), path: path),
            Patch(action: .DeleteSeq(DeleteSeq(obj: text, index: 5, length: 6)), path: path),
        ])
        #expect(try alice.text(obj: text) == "Jello")
    }

    @Test func listInsertsAndIncrements() throws {
        let alice = Document.peer(0x01)
        let list = try alice.putObject(obj: .ROOT, key: "list", ty: .List)
        try alice.insert(obj: list, index: 0, value: .Counter(1))
        let bob = alice.forkPeer(0x02)
        try bob.increment(obj: list, index: 0, by: 4)
        try bob.insert(obj: list, index: 1, value: .String("x"))
        try bob.insert(obj: list, index: 2, value: .String("y"))
        let patches = try alice.mergeWithPatches(other: bob)
        let path = [PathElement(obj: .ROOT, prop: .Key("list"))]
        #expect(patches == [
            Patch(action: .Increment(list, .Index(0), 4), path: path),
            Patch(action: .Insert(obj: list, index: 1, values: [.Scalar(.String("x")), .Scalar(.String("y"))]), path: path),
        ])
    }

    @Test func concurrentPutsReportAConflict() throws {
        let alice = Document.peer(0x01)
        let bob = alice.forkPeer(0x02)
        try alice.put(obj: .ROOT, key: "k", value: .Int(1))
        try bob.put(obj: .ROOT, key: "k", value: .Int(2))
        let patches = try alice.mergeWithPatches(other: bob)
        #expect(patches == [
            Patch(action: .Put(.ROOT, .Key("k"), .Scalar(.Int(2))), path: []),
            Patch(action: .Conflict(.ROOT, .Key("k")), path: []),
        ])
    }

    @Test func marksFromAnotherPeer() throws {
        let alice = Document.peer(0x01)
        let text = try alice.putObject(obj: .ROOT, key: "text", ty: .Text)
        try alice.spliceText(obj: text, start: 0, delete: 0, value: "bold text")
        let bob = alice.forkPeer(0x02)
        try bob.mark(obj: text, start: 0, end: 4, expand: .after, name: "bold", value: .Boolean(true))
        let patches = try alice.mergeWithPatches(other: bob)
        #expect(patches == [
            Patch(action: .Marks(text, [Mark(start: 0, end: 4, name: "bold", value: .Boolean(true))]),
                  path: [PathElement(obj: .ROOT, prop: .Key("text"))]),
        ])
    }

    @Test func differenceBetweenHeadsAndFromTheStart() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "a", value: .Int(1))
        let first = doc.committedHeads()
        try doc.put(obj: .ROOT, key: "a", value: .Int(2))
        let second = doc.committedHeads()
        #expect(doc.difference(from: first, to: second) == [Patch(action: .Put(.ROOT, .Key("a"), .Scalar(.Int(2))), path: [])])
        #expect(doc.difference(from: second, to: first) == [Patch(action: .Put(.ROOT, .Key("a"), .Scalar(.Int(1))), path: [])])
        #expect(doc.difference(since: second).isEmpty)
        #expect(doc.difference(to: first) == [Patch(action: .Put(.ROOT, .Key("a"), .Scalar(.Int(1))), path: [])])
    }

    @Test func applyEncodedChangesWithPatchesReportsTheirEffect() throws {
        let alice = Document.peer(0x01)
        let bob = alice.forkPeer(0x02)
        try bob.put(obj: .ROOT, key: "from", value: .String("bob"))
        bob.commitChange()
        let patches = try alice.applyEncodedChangesWithPatches(encoded: try bob.encodeChangesSince(heads: alice.heads()))
        #expect(patches == [Patch(action: .Put(.ROOT, .Key("from"), .Scalar(.String("bob"))), path: [])])
    }
}

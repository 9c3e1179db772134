import Foundation
import Testing
@_spi(Observation) @testable import Automerge

/// `emptyChange` gives a document a change with no ops, as Rust's
/// `empty_change` does (automerge-repo's `create()` relies on it), and the
/// change observer hears every call that changes a document.
@Suite("Empty changes and change observers")
struct EmptyChangeTests {
    @Test("an empty change is a head of its own, with no ops, that survives save and load")
    func emptyChangeRoundTrips() throws {
        let document = Document()
        document.emptyChange(message: "created", timestamp: Date(timeIntervalSince1970: 1))
        let heads = document.heads()
        #expect(heads.count == 1)
        let change = try #require(document.change(hash: heads.first!))
        #expect(change.message == "created")
        #expect(change.deps.isEmpty)
        let loaded = try Document(document.save())
        #expect(loaded.heads() == heads)
        #expect(loaded.keys(obj: .ROOT).isEmpty)
    }

    @Test("pending edits are committed first, and the empty change depends on them")
    func emptyChangeAfterEdits() throws {
        let document = Document()
        try document.put(obj: .ROOT, key: "a", value: .Int(1))
        document.emptyChange()
        #expect(document.getHistory().count == 2)
        let head = try #require(document.change(hash: document.heads().first!))
        #expect(head.deps.count == 1)
        let copy = Document()
        try copy.applyEncodedChanges(encoded: document.encodeChangesSince(heads: []))
        #expect(copy.heads() == document.heads())
        #expect(try copy.get(obj: .ROOT, key: "a") == .Scalar(.Int(1)))
    }

    @Test("an observer hears each changing call until it stops observing; reads are not changes")
    func observerHearsChanges() throws {
        let document = Document()
        let calls = Counter()
        let token = document.observeChanges { calls.add() }
        try document.put(obj: .ROOT, key: "a", value: .Int(1))
        _ = try document.get(obj: .ROOT, key: "a")
        try document.put(obj: .ROOT, key: "b", value: .Int(2))
        #expect(calls.value == 2)
        document.stopObservingChanges(token)
        try document.put(obj: .ROOT, key: "c", value: .Int(3))
        #expect(calls.value == 2)
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
}

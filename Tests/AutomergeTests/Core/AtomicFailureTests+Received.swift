import Foundation
import Testing
@_spi(Conformance) @testable import Automerge

/// Changes received by `applyEncodedChanges` and `merge`: a call applies
/// all of them or none, and the pending edits stay pending when it fails.
extension AtomicFailureTests {
    /// The peer that writes the hand-made changes below.
    static let remote = actorId(0x0a)

    /// Hand-made changes on top of an ``EditedDocument``'s committed history.
    struct RemoteChanges {
        /// Puts `remote` = 1 at the root: a valid change.
        let good: [UInt8]
        let goodHash: ChangeHash
        let committedHeads: Set<ChangeHash>
        let text: StoredOpId
        let firstCharacter: StoredOpId

        init(_ f: EditedDocument) throws {
            committedHeads = f.doc.locked { $0.history.heads }
            good = changeChunk([storedPut("remote", .int(1))], actor: AtomicFailureTests.remote, startOp: 100, dependencies: committedHeads)
            goodHash = try DocumentState.decodeChange(good).hash
            // Ops of the fixture's first change: the text is 3@01 and its
            // first character 8@01 (actor 1 of the changes below).
            #expect(f.text.counter == 3)
            let h = f.doc.locked { state in
                state.ops.withSequence(ofObjectAt: state.ops.resolve(f.text)!.index) { sequence in
                    sequence.pointee[sequence.pointee.element(coveringUnit: 0)!.location].id
                }
            }
            #expect(h.counter == 8)
            text = StoredOpId(counter: 3, actor: 1)
            firstCharacter = StoredOpId(counter: UInt64(h.counter), actor: 1)
        }

        /// The remote's second change, after ``good``, holding `ops`.
        func second(_ ops: [StoredOp], sequence: UInt64 = 2, dependencies: Set<ChangeHash>? = nil) -> [UInt8] {
            ChangeChunk.encode(StoredChange(
                dependencies: (dependencies ?? [goodHash]).sorted(), actors: [AtomicFailureTests.remote, actorId(0x01)],
                sequence: sequence, startOp: 101, time: 0, message: nil, ops: ops, extraBytes: [])).bytes
        }

        /// A mark whose end anchor sorts before its begin anchor: both go
        /// after the first character, and the end has the higher id.
        var misorderedMark: [UInt8] {
            second([
                StoredOp(object: text, key: .element(firstCharacter), insert: true, action: 7, value: .bool(true), predecessors: [],
                         id: nil, successors: [], expand: false, markName: "bold"),
                StoredOp(object: text, key: .element(firstCharacter), insert: true, action: 7, value: .null, predecessors: [],
                         id: nil, successors: [], expand: false, markName: nil),
            ])
        }

        /// Bad second changes, each after ``good`` in the same call, with the error each must raise.
        var badSeconds: [(what: String, bytes: [UInt8], error: (AutomergeError) -> Bool)] {
            let missingObject = StoredOpId(counter: 99, actor: 1)
            let missingElement = StoredOpId(counter: 98, actor: 1)
            return [
                ("an op on an unknown object", second([storedPut("x", .int(1), in: missingObject)]), isInvalidChange("missing object")),
                ("an insert after an unknown element", second([
                    StoredOp(object: text, key: .element(missingElement), insert: true, action: 1, value: .string("x"), predecessors: [],
                             id: nil, successors: [], expand: false, markName: nil),
                ]), isInvalidChange("missing list element")),
                ("a repeated sequence number", changeChunk([storedPut("other", .int(2))], actor: AtomicFailureTests.remote, startOp: 100,
                                                           dependencies: committedHeads),
                 { $0 == .duplicateSequenceNumber(actor: AtomicFailureTests.remote, sequence: 1) }),
                ("a skipped sequence number", second([storedPut("x", .int(1))], sequence: 3), isInvalidChange("expected 2")),
                ("a mark end before its begin", misorderedMark, isInvalidChange("end anchor before its begin anchor")),
            ]
        }
    }

    @Test func applyEncodedChanges() throws {
        let f = try EditedDocument()
        let remote = try RemoteChanges(f)
        // Part-way: a naive apply commits the pending edits and applies the
        // good change before it meets the bad one.
        for bad in remote.badSeconds {
            expectRefused(f.doc, "a good change, then \(bad.what)", { try f.doc.applyEncodedChanges(encoded: Data(remote.good + bad.bytes)) }, bad.error)
        }
        // A change waiting for a dependency would be queued (and saved with the document).
        let waiting = changeChunk([storedPut("w", .int(1))], actor: actorId(0x0b), startOp: 200,
                                  dependencies: [ChangeHash(hexString: String(repeating: "cd", count: 32))!])
        expectRefused(f.doc, "a good change, a waiting one, then a bad one", {
            try f.doc.applyEncodedChanges(encoded: Data(remote.good + waiting + remote.badSeconds[0].bytes))
        }, remote.badSeconds[0].error)
        expectRefused(f.doc, "a good change, then bytes cut short", { try f.doc.applyEncodedChanges(encoded: Data(remote.good + remote.good.dropLast(3))) }) {
            if case .load = $0 { return true }
            return false
        }
        try expectStillWorks(f.doc) { try f.doc.applyEncodedChanges(encoded: Data(remote.good)) }
        #expect(try f.doc.get(obj: .ROOT, key: "remote") == .Scalar(.Int(1)))
        #expect(try f.doc.get(obj: .ROOT, key: "pending") == .Scalar(.Boolean(true)))
    }

    @Test func applyEncodedChangesWithPatches() throws {
        let f = try EditedDocument()
        let remote = try RemoteChanges(f)
        for bad in remote.badSeconds {
            expectRefused(f.doc, "a good change, then \(bad.what)", { _ = try f.doc.applyEncodedChangesWithPatches(encoded: Data(remote.good + bad.bytes)) }, bad.error)
        }
        try expectStillWorks(f.doc) {
            // The pending edits are committed first, so they are not in the patches.
            let patches = try f.doc.applyEncodedChangesWithPatches(encoded: Data(remote.good))
            #expect(patches == [Patch(action: .Put(.ROOT, .Key("remote"), .Scalar(.Int(1))), path: [])])
        }
    }

    /// Not a failure: a change queued earlier that turns out bad once its
    /// dependencies arrive is dropped, and the call applies the rest (see
    /// ``DocumentState/apply(_:)``).
    @Test func aQueuedChangeRefusedWhenItsDependenciesArriveIsDropped() throws {
        let f = try EditedDocument()
        let remote = try RemoteChanges(f)
        try f.doc.applyEncodedChanges(encoded: Data(remote.misorderedMark))
        #expect(f.doc.locked { $0.queue.count } == 1)
        try f.doc.applyEncodedChanges(encoded: Data(remote.good))
        #expect(f.doc.locked { $0.queue.isEmpty })
        #expect(f.doc.heads().contains(remote.goodHash))
        #expect(try Document(f.doc.save()).heads() == f.doc.heads())
    }

    /// A peer of `f`'s committed history (its pending edits left out) with
    /// two new changes of its own, then `last`.
    static func peer(of f: EditedDocument, then last: (Document) throws -> Void) throws -> Document {
        let other = try Document(Data(f.doc.locked { $0.history.concatenatedBytes(of: Array($0.history.records.indices)) }))
        other.actor = actorId(0x07)
        try other.put(obj: .ROOT, key: "o1", value: .Int(1))
        other.commitChange()
        try other.put(obj: f.map, key: "o2", value: .Int(2))
        other.commitChange()
        try last(other)
        other.commitChange()
        return other
    }

    /// Peers whose last change `f` must refuse: one reuses `f`'s actor and
    /// the sequence number of its pending edits, one holds a misordered mark.
    static func refusedPeers(of f: EditedDocument) throws -> [(what: String, doc: Document, error: (AutomergeError) -> Bool)] {
        let clash = try peer(of: f) { other in
            other.actor = actorId(0x01)
            try other.put(obj: .ROOT, key: "clash", value: .Int(3))
        }
        let remote = try RemoteChanges(f)
        let marked = try peer(of: f) { other in
            try other.applyEncodedChangesAcceptingMisorderedMarks(Data(remote.good + remote.misorderedMark))
        }
        return [
            ("the pending change's actor and sequence number", clash, { $0 == .duplicateSequenceNumber(actor: actorId(0x01), sequence: 3) }),
            ("a mark end before its begin", marked, isInvalidChange("end anchor before its begin anchor")),
        ]
    }

    @Test func merge() throws {
        let f = try EditedDocument()
        // Part-way: a naive merge commits the pending edits and applies the
        // peer's first changes before it meets the refused one.
        for peer in try Self.refusedPeers(of: f) {
            expectRefused(f.doc, "merging a peer with \(peer.what)", { try f.doc.merge(other: peer.doc) }, peer.error)
        }
        let good = try Self.peer(of: f) { _ in }
        try expectStillWorks(f.doc) { try f.doc.merge(other: good) }
        #expect(try f.doc.get(obj: f.map, key: "o2") == .Scalar(.Int(2)))
    }

    @Test func mergeWithPatches() throws {
        let f = try EditedDocument()
        for peer in try Self.refusedPeers(of: f) {
            expectRefused(f.doc, "merging a peer with \(peer.what)", { _ = try f.doc.mergeWithPatches(other: peer.doc) }, peer.error)
        }
        let good = try Self.peer(of: f) { _ in }
        try expectStillWorks(f.doc) {
            let patches = try f.doc.mergeWithPatches(other: good)
            #expect(patches == [
                Patch(action: .Put(f.map, .Key("o2"), .Scalar(.Int(2))), path: [PathElement(obj: .ROOT, prop: .Key("map"))]),
                Patch(action: .Put(.ROOT, .Key("o1"), .Scalar(.Int(1))), path: []),
            ])
        }
    }
}

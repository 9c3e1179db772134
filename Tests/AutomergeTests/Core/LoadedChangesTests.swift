import Foundation
import Testing
@testable import Automerge

// A loaded document's changes are rebuilt from its document chunk's rows.
// Whatever reads them (change(hash:), encodeChangesSince, forkAt, a merge
// into another document, sync) must get the bytes the changes were made
// with, from forks too and from several threads at once.

@Suite("Changes of a loaded document")
struct LoadedChangesTests {
    /// A document of three actors, with messages, times, a text, a list,
    /// counters and deletes, merged back and forth.
    static func original() throws -> Document {
        let base = Document()
        base.actor = try #require(ActorId(data: Data([1, 1])))
        let text = try base.putObject(obj: .ROOT, key: "text", ty: .Text)
        let list = try base.putObject(obj: .ROOT, key: "list", ty: .List)
        try base.put(obj: .ROOT, key: "count", value: .Counter(0))
        base.commitWith(message: "start", timestamp: Date(timeIntervalSince1970: 1_700_000_000))
        let others = [base.fork(), base.fork()]
        for (offset, other) in others.enumerated() { other.actor = try #require(ActorId(data: Data([2, UInt8(offset)]))) }
        for round in 0..<12 {
            for (offset, document) in ([base] + others).enumerated() {
                try document.spliceText(obj: text, start: 0, delete: round % 3 == 2 ? 1 : 0, value: "r\(round)a\(offset) ")
                try document.insert(obj: list, index: 0, value: .Int(Int64(round)))
                try document.increment(obj: .ROOT, key: "count", by: 1)
                if round % 4 == 3 { try document.delete(obj: list, index: 1) }
                document.commitWith(message: round % 2 == 0 ? "round \(round)" : nil,
                                    timestamp: Date(timeIntervalSince1970: 1_700_000_000 + Double(round)))
            }
            if round % 3 == 0 { try base.merge(other: others[round % 2]); try others[round % 2].merge(other: base) }
        }
        for other in others { try base.merge(other: other) }
        return base
    }

    @Test("a loaded document gives every change as the document it was saved from does")
    func changesMatchTheOriginal() throws {
        let original = try Self.original()
        let loaded = try Document(original.save())
        #expect(loaded.getHistory() == original.getHistory())
        for hash in original.getHistory() {
            let ours = try #require(loaded.change(hash: hash)), theirs = try #require(original.change(hash: hash))
            #expect(ours.bytes == theirs.bytes && ours.message == theirs.message && ours.timestamp == theirs.timestamp)
            #expect(ours.deps == theirs.deps && ours.actorId == theirs.actorId)
        }
        #expect(try loaded.encodeChangesSince(heads: []) == original.encodeChangesSince(heads: []))
    }

    @Test("what asks first does not matter: encodeChangesSince, forkAt, merge into another document, sync")
    func firstReaders() throws {
        let original = try Self.original()
        let saved = original.save()
        let middle = original.getHistory()[original.getHistory().count / 2]

        let forkedAt = try Document(saved).forkAt(heads: [middle])
        #expect(forkedAt.heads() == [middle])
        #expect(try forkedAt.encodeChangesSince(heads: []) == original.forkAt(heads: [middle]).encodeChangesSince(heads: []))

        let target = Document()
        try target.merge(other: try Document(saved))
        #expect(target.heads() == original.heads())
        #expect(Set(target.getHistory()) == Set(original.getHistory()))
        for hash in original.getHistory() { #expect(target.change(hash: hash)?.bytes == original.change(hash: hash)?.bytes) }

        let loaded = try Document(saved), peer = Document()
        let ourState = SyncState(), peerState = SyncState()
        for _ in 0..<10 {
            if let message = loaded.generateSyncMessage(state: ourState) { try peer.receiveSyncMessage(state: peerState, message: message) }
            if let message = peer.generateSyncMessage(state: peerState) { try loaded.receiveSyncMessage(state: ourState, message: message) }
        }
        #expect(peer.heads() == original.heads())
        for hash in original.getHistory() { #expect(peer.change(hash: hash)?.bytes == original.change(hash: hash)?.bytes) }
    }

    @Test("forks of a loaded document read the same changes, at once from several threads")
    func forksReadTheSameChanges() async throws {
        let original = try Self.original()
        let expected = try original.encodeChangesSince(heads: [])
        let loaded = try Document(original.save())
        let forks = (0..<4).map { _ in loaded.fork() }
        try forks[0].put(obj: .ROOT, key: "after", value: .Int(1))
        forks[0].commitWith()
        let results = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for (index, fork) in forks.enumerated() { group.addTask { (index, try fork.encodeChangesSince(heads: [])) } }
            return try await group.reduce(into: [Int: Data]()) { $0[$1.0] = $1.1 }
        }
        #expect(results[0]!.starts(with: expected) && results[0]!.count > expected.count)
        for index in 1..<forks.count { #expect(results[index] == expected) }
        #expect(try loaded.encodeChangesSince(heads: []) == expected)
    }
}

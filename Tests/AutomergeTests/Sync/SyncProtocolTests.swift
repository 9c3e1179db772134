import Foundation
import Testing
@testable import Automerge

/// The protocol's behaviour, from Rust 0.11's own sync tests (`sync.rs`).
@Suite("Sync: protocol")
struct SyncProtocolTests {
    @Test("generating twice without an answer sends nothing the second time")
    func generateTwice() throws {
        let doc = document(actor: "aa", puts: 1)
        let state = SyncState()
        #expect(doc.generateSyncMessage(state: state) != nil)
        #expect(doc.generateSyncMessage(state: state) == nil)
    }

    @Test("the first response goes out even when there is nothing to send, and then nothing more")
    func firstResponse() throws {
        let one = document(actor: "aa", puts: 1)
        let two = one.fork()
        let (s1, s2) = (SyncState(), SyncState())
        try two.receiveSyncMessage(state: s2, message: try #require(one.generateSyncMessage(state: s1)))
        #expect(two.generateSyncMessage(state: s2) != nil)
        #expect(one.generateSyncMessage(state: s1) == nil)
        #expect(two.generateSyncMessage(state: s2) == nil)
    }

    @Test("simultaneous messages: both report, both send what the other lacks, both acknowledge, then silence")
    func simultaneous() throws {
        let one = document(actor: "abc123"), two = document(actor: "def456")
        for index in 0..<5 {
            try one.put(obj: .ROOT, key: "x", value: .Int(Int64(index)))
            one.commitChange()
            try two.put(obj: .ROOT, key: "y", value: .Int(Int64(index)))
            two.commitChange()
        }
        let (head1, head2) = (one.heads().first!, two.heads().first!)
        let (s1, s2) = (SyncState(), SyncState())
        var m1 = try decoded(one.generateSyncMessage(state: s1)), m2 = try decoded(two.generateSyncMessage(state: s2))
        #expect(m1.changes.isEmpty && m2.changes.isEmpty)
        #expect(m1.have.first?.lastSync == [] && m2.have.first?.lastSync == [])
        try one.receiveSyncMessage(state: s1, message: m2.encode())
        try two.receiveSyncMessage(state: s2, message: m1.encode())
        m1 = try decoded(one.generateSyncMessage(state: s1))
        m2 = try decoded(two.generateSyncMessage(state: s2))
        #expect(!m1.changes.isEmpty && !m2.changes.isEmpty)
        try one.receiveSyncMessage(state: s1, message: m2.encode())
        try two.receiveSyncMessage(state: s2, message: m1.encode())
        m1 = try decoded(one.generateSyncMessage(state: s1))
        m2 = try decoded(two.generateSyncMessage(state: s2))
        #expect(m1.changes.isEmpty && m2.changes.isEmpty)
        try one.receiveSyncMessage(state: s1, message: m2.encode())
        try two.receiveSyncMessage(state: s2, message: m1.encode())
        #expect(s1.sharedHeads == s2.sharedHeads)
        #expect(one.generateSyncMessage(state: s1) == nil && two.generateSyncMessage(state: s2) == nil)
        #expect(one.hasOurChanges(state: s1) && two.hasOurChanges(state: s2))
        try one.put(obj: .ROOT, key: "x", value: .Int(5))
        #expect(!one.hasOurChanges(state: s1))
        let next = try decoded(one.generateSyncMessage(state: s1))
        #expect(next.have.first?.lastSync == [head1, head2].sorted())
    }

    @Test("a peer that announces no heads and reads V2 gets the whole document in one entry")
    func wholeDocument() throws {
        let empty = Document(), full = document(actor: "aa", puts: 3)
        let (s1, s2) = (SyncState(), SyncState())
        try full.receiveSyncMessage(state: s2, message: try #require(empty.generateSyncMessage(state: s1)))
        let response = try decoded(full.generateSyncMessage(state: s2))
        #expect(response.version == .v2)
        #expect(response.changes.count == 1 && response.changes[0][8] == 0, "one document chunk")
        try empty.receiveSyncMessage(state: s1, message: response.encode())
        #expect(empty.heads() == full.heads())
        #expect(empty.actor != full.actor, "loading a whole document keeps our actor")
    }

    @Test("changes go to a peer without a flags trailer as V1, one chunk per change")
    func v1ForOldPeers() throws {
        let doc = document(actor: "aa", puts: 3)
        let state = SyncState()
        try doc.receiveSyncMessage(state: state, message: SyncMessage(have: [SyncHave()]).encode())
        let reply = try decoded(doc.generateSyncMessage(state: state))
        #expect(reply.version == .v1 && reply.changes.count == 3)
        #expect(reply.flags == [.supportsSyncReset])
    }

    @Test("in-flight logic does not sabotage concurrent changes (Rust issue 702)")
    func inFlightConcurrentChanges() throws {
        for _ in 0..<100 {
            let (one, two) = (Document(), Document())
            let (s1, s2) = (SyncState(), SyncState())
            try sync(one, two, s1, s2)
            try two.put(obj: .ROOT, key: "x", value: .Int(0))
            try one.receiveSyncMessage(state: s1, message: try #require(two.generateSyncMessage(state: s2)))
            try one.put(obj: .ROOT, key: "x", value: .Int(1))
            try sync(one, two, s1, s2)
            #expect(one.heads() == two.heads())
        }
    }

    @Test("lots of branching and merging converge")
    func branchingAndMerging() throws {
        let one = document(actor: "01234567"), two = document(actor: "89abcdef"), three = document(actor: "fedcba98")
        try one.put(obj: .ROOT, key: "x", value: .Int(0))
        one.commitChange()
        try two.merge(other: one)
        try three.merge(other: one)
        try three.put(obj: .ROOT, key: "x", value: .Int(1))
        three.commitChange()
        for index in 1..<20 {
            try one.put(obj: .ROOT, key: "n1", value: .Int(Int64(index)))
            try two.put(obj: .ROOT, key: "n2", value: .Int(Int64(index)))
            let snapshot = one.fork()
            try one.merge(other: two)
            try two.merge(other: snapshot)
        }
        let (s1, s2) = (SyncState(), SyncState())
        try sync(one, two, s1, s2)
        try two.merge(other: three)
        try one.put(obj: .ROOT, key: "n1", value: .String("final"))
        try two.put(obj: .ROOT, key: "n1", value: .String("final"))
        try sync(one, two, s1, s2)
        #expect(one.heads() == two.heads())
    }

    @Test("receiving with patches reports what the message changed")
    func patches() throws {
        let source = document(actor: "aa")
        try source.put(obj: .ROOT, key: "greeting", value: .String("hello"))
        let target = Document()
        let (s1, s2) = (SyncState(), SyncState())
        var patches: [Patch] = []
        for _ in 0..<5 {
            if let message = source.generateSyncMessage(state: s1) {
                patches += try target.receiveSyncMessageWithPatches(state: s2, message: message)
            }
            if let message = target.generateSyncMessage(state: s2) { try source.receiveSyncMessage(state: s1, message: message) }
        }
        #expect(patches.contains { $0.action == .Put(.ROOT, .Key("greeting"), .Scalar(.String("hello"))) })
        #expect(target.string("greeting") == "hello")
    }
}

import Automerge
import Foundation

extension SyncScenario {
    static let special: [SyncScenario] = [
        SyncScenario("explicitly requested change") { context in
            let doc = SyncFixtures.document(changes: 10)
            let wanted = doc.getHistory()[3]
            let peer = try context.peer(0, doc)
            // No flags trailer: we present as a V1 peer, and ask for one old change by hash.
            try peer.receive(SyncMessage(version: .v1, need: [wanted]).encoded())
            guard let reply = try peer.generate() else { throw SyncScenarioFailure(description: "no reply to a request") }
            let message = try SyncMessage(decoding: reply[...])
            try context.expect(message.version == .v1, "answered a V1 peer with \(message.version)")
            let hashes = message.changes.map { Bytes.sha256(Array($0.dropFirst(8))) }
            try context.expect(hashes == [wanted.bytes], "sent \(message.changes.count) changes, expected exactly the requested \(wanted)")
        },
        SyncScenario("read-only peer") { context in
            let a = try context.peer(0, SyncFixtures.document(actor: "abc123", changes: 4, tag: "a"))
            let b = try context.peer(1, SyncFixtures.document(actor: "def456", changes: 4, tag: "b"))
            let headsBefore = try a.heads()
            try a.setReadOnly(true)
            try context.sync(a, b)
            try context.expect(try a.heads() == headsBefore, "the read-only peer applied changes")
            try context.expect(Set(try b.heads()).isSuperset(of: headsBefore), "the read-only peer's changes did not reach the other")
            try a.setReadOnly(false)
            try context.sync(a, b)
            try context.expectConverged(a, b, "after leaving read-only mode")
        },
        SyncScenario("Rust 0.5 peer (V1 only, no flags)") { context in
            let old = LegacySyncPeer(.rust05, document: SyncFixtures.document(actor: "05", changes: 8, tag: "old"))
            let tested = try context.peer(1, SyncFixtures.document(actor: "11", changes: 8, tag: "new"))
            try context.sync(old, tested)
            try context.expectConverged(old, tested)
            try tested.put(key: "more", value: "1")
            try context.sync(tested, old)
            try context.expectConverged(old, tested, "after a second session")
        },
        SyncScenario("automerge-swift 0.6.1 peer (capabilities trailer 02 01 02)") { context in
            let old = LegacySyncPeer(.rust06, document: Document())
            let tested = try context.peer(1, SyncFixtures.document(actor: "11", changes: 20, tag: "new"))
            try context.sync(old, tested)
            try context.expectConverged(old, tested)
            try context.expect(old.receivedVersions.contains(.v2), "a peer that reads V2 got only V1 messages")
        },
    ]
}

/// A peer speaking an older protocol: this package's sync behind a filter
/// that rewrites its flags as an older release wrote them and hides from
/// it what that release would not understand.
final class LegacySyncPeer: SyncPeer {
    enum Release {
        /// Rust 0.5: no flags trailer; cannot read V2 messages.
        case rust05
        /// Rust 0.6 (automerge-swift 0.6.1): the trailer is the capability list `[V1, V2]`.
        case rust06
    }

    let release: Release
    let inner: LocalSyncPeer
    private(set) var receivedVersions: [SyncMessage.Version] = []
    var name: String { release == .rust05 ? "rust-0.5" : "rust-0.6" }

    init(_ release: Release, document: Document) {
        self.release = release
        inner = LocalSyncPeer(name: "legacy", document: document)
    }

    func generate() throws -> [UInt8]? {
        guard let bytes = inner.generate() else { return nil }
        var message = try SyncMessage(decoding: bytes[...])
        message.flags = nil
        switch release {
        case .rust05: return message.encoded()
        case .rust06: return message.encoded() + [0x02, 0x01, 0x02]
        }
    }

    func receive(_ bytes: [UInt8]) throws {
        var message = try SyncMessage(decoding: bytes[...])
        receivedVersions.append(message.version)
        switch release {
        case .rust05:
            guard message.version == .v1 else { throw SyncPeerError.refused("a Rust 0.5 peer cannot read a V2 message") }
            message.flags = nil
        case .rust06:
            message.flags = message.flags.map { _ in [] }
        }
        try inner.receive(message.encoded())
    }

    func heads() -> [ChangeHash] { inner.heads() }
    func save() -> Data { inner.save() }
    func put(key: String, value: String) throws { try inner.put(key: key, value: value) }
    func splice(key: String, position: Int, delete: Int, text: String) throws {
        try inner.splice(key: key, position: position, delete: delete, text: text)
    }
    func resetState() { inner.resetState() }
    func encodeState() -> [UInt8] { inner.encodeState() }
    func decodeState(_ bytes: [UInt8]) throws { try inner.decodeState(bytes) }
    func setReadOnly(_ readOnly: Bool) throws { throw SyncPeerError.unsupported("READONLY (\(name))") }
}

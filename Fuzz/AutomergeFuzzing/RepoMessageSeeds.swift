import Automerge
import AutomergeRepoProtocol
import Foundation

extension FuzzSeeds {
    /// Frames of the automerge-repo network for `repo-message`: each kind of
    /// message as our encoder writes it, a `sync` carrying a real Automerge
    /// sync message; the forms other peers send (samod's `error`, `metadata`
    /// for `peerMetadata`, `undefined` fields, a float `count`, a document id
    /// as 16 bytes, indefinite-length maps and strings, keys in another
    /// order); and malformed ones, one per way of failing (truncated, not a
    /// map, no `type`, a missing or mistyped field, a bad document id, a
    /// repeated key, trailing bytes, nesting too deep).
    static func repoMessageSeeds() throws -> [(name: String, data: Data)] {
        var seeds: [(String, Data)] = []
        func add(_ name: String, _ bytes: [UInt8]) { seeds.append(("seed-\(name)", Data(bytes))) }

        let alice: PeerId = "alice-7d1b", bob: PeerId = "bob-02c4"
        let documentId = try DocumentId(bytes: Array(0x10..<0x20))
        let storage: StorageId = "3760df37-a4c6-4f66-9ecd-732039a9385d"
        let (a, _) = try SyncDocuments.pair(0)
        let syncData = [UInt8](a.generateSyncMessage(state: SyncState()) ?? Data())

        let messages: [(String, RepoMessage)] = [
            ("join", .join(senderId: alice, peerMetadata: PeerMetadata(storageId: storage, isEphemeral: false))),
            ("peer", .peer(senderId: bob, targetId: alice, peerMetadata: PeerMetadata(isEphemeral: true))),
            ("error", .error(message: "unsupported protocol version", senderId: bob, targetId: alice)),
            ("leave", .leave(senderId: alice)),
            ("sync", .sync(senderId: alice, targetId: bob, documentId: documentId, data: syncData)),
            ("request", .request(senderId: alice, targetId: bob, documentId: documentId, data: syncData)),
            ("doc-unavailable", .docUnavailable(senderId: bob, targetId: alice, documentId: documentId)),
            ("ephemeral", .ephemeral(senderId: alice, targetId: bob, count: 41, sessionId: "session-9f", documentId: documentId,
                                     data: SeedCBOR.map([("cursor", [0x0c])]))),
            ("remote-subscription-change", .remoteSubscriptionChange(senderId: alice, targetId: bob, add: [storage, "other-storage"],
                                                                     remove: ["gone"])),
            ("remote-heads-changed", .remoteHeadsChanged(senderId: bob, targetId: alice, documentId: documentId, newHeads: [
                storage: RemoteHeads(heads: ["2Rt7oTjwXYJ8zN2NDpHBsaoUVmP1dgxsWPyFrBzeqHmZ4kg8tz"], timestamp: 1_767_225_600_000),
                "other-storage": RemoteHeads(heads: [], timestamp: 0),
            ])),
            ("unknown-type", .unknown(type: "future-message")),
            ("join-minimal", .join(senderId: alice, supportedProtocolVersions: nil)),
            ("error-samod", .error(message: "bye")),
            ("remote-subscription-change-empty", .remoteSubscriptionChange(senderId: alice, targetId: bob)),
        ]
        for (name, message) in messages { add(name, message.encoded()) }

        // What other peers write.
        typealias C = SeedCBOR
        add("join-js-metadata-undefined", C.map([
            ("type", C.text("join")), ("senderId", C.text(alice.rawValue)), ("supportedProtocolVersions", C.array([C.text("1")])),
            ("metadata", C.map([("storageId", C.undefined), ("isEphemeral", C.true)])), ("peerMetadata", C.null),
        ]))
        add("ephemeral-float-count", C.map([
            ("type", C.text("ephemeral")), ("senderId", C.text(alice.rawValue)), ("targetId", C.text(bob.rawValue)),
            ("count", [0xfb, 0x40, 0x08, 0, 0, 0, 0, 0, 0]), ("sessionId", C.text("s")),
            ("documentId", C.text(documentId.description)), ("data", C.bytes([0xa0])),
        ]))
        add("sync-document-id-bytes", C.map([
            ("senderId", C.text(alice.rawValue)), ("data", C.bytes(syncData)), ("type", C.text("sync")),
            ("documentId", C.bytes(documentId.bytes)), ("targetId", C.text(bob.rawValue)), ("extra", C.array([[0x01]])),
        ]))
        // An indefinite-length map, its type and its data each in two chunks.
        var indefinite: [UInt8] = [0xbf] + C.text("type") + [0x7f] + C.text("sy") + C.text("nc") + [0xff]
        for (key, value) in [("senderId", alice.rawValue), ("targetId", bob.rawValue), ("documentId", documentId.description)] {
            indefinite += C.text(key) + C.text(value)
        }
        indefinite += C.text("data") + [0x5f] + C.bytes([0x42, 0x00]) + C.bytes([0x00]) + [0xff, 0xff]
        add("sync-indefinite-lengths", indefinite)

        // Malformed.
        let sync = RepoMessage.sync(senderId: alice, targetId: bob, documentId: documentId, data: [1, 2, 3]).encoded()
        add("malformed-truncated", Array(sync.dropLast(2)))
        add("malformed-trailing-bytes", sync + [0x00])
        add("malformed-not-a-map", C.array([C.text("sync")]))
        add("malformed-no-type", C.map([("senderId", C.text(alice.rawValue))]))
        add("malformed-missing-sender", C.map([("type", C.text("leave"))]))
        add("malformed-data-as-text", C.map([
            ("type", C.text("request")), ("senderId", C.text(alice.rawValue)), ("targetId", C.text(bob.rawValue)),
            ("documentId", C.text(documentId.description)), ("data", C.text("AQID")),
        ]))
        var badChecksum = Array(documentId.description.utf8)
        badChecksum[badChecksum.count - 1] = badChecksum.last == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
        add("malformed-document-id-checksum", C.map([
            ("type", C.text("doc-unavailable")), ("senderId", C.text(bob.rawValue)), ("targetId", C.text(alice.rawValue)),
            ("documentId", C.text(String(decoding: badChecksum, as: UTF8.self))),
        ]))
        add("malformed-duplicate-key", C.map([("type", C.text("leave")), ("type", C.text("join"))]))
        add("malformed-too-deep", C.map([("type", C.text("x")), ("y", [UInt8](repeating: 0x81, count: 70) + [0x00])]))
        add("malformed-huge-length", C.map([("type", [0x7b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])]))
        return seeds
    }
}

/// CBOR items written by hand for the seeds, in preferred serialization
/// unless a seed spells otherwise.
enum SeedCBOR {
    static let null: [UInt8] = [0xf6]
    static let undefined: [UInt8] = [0xf7]
    static let `true`: [UInt8] = [0xf5]

    /// A head of `major` type with the argument `argument`, in its shortest form.
    static func head(_ major: UInt8, _ argument: Int) -> [UInt8] {
        let type = major << 5
        switch argument {
        case 0..<24: return [type | UInt8(argument)]
        case 24...0xff: return [type | 24, UInt8(argument)]
        case 0x100...0xffff: return [type | 25, UInt8(argument >> 8), UInt8(argument & 0xff)]
        default: return [type | 26] + (0..<4).map { UInt8(truncatingIfNeeded: argument >> (24 - 8 * $0)) }
        }
    }

    static func text(_ text: String) -> [UInt8] { head(3, text.utf8.count) + Array(text.utf8) }
    static func bytes(_ bytes: [UInt8]) -> [UInt8] { head(2, bytes.count) + bytes }
    static func array(_ items: [[UInt8]]) -> [UInt8] { head(4, items.count) + items.joined() }

    /// A map with text keys, each followed by its value's bytes, in the order given.
    static func map(_ entries: [(String, [UInt8])]) -> [UInt8] {
        head(5, entries.count) + entries.flatMap { text($0.0) + $0.1 }
    }
}

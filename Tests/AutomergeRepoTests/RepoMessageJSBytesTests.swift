import Testing
@testable import AutomergeRepoProtocol

/// Messages as automerge-repo (JavaScript) puts them on the wire: its
/// `cbor.encode` is cbor-x's `Encoder({ tagUint8Array: false, useRecords: false })`
/// (packages/automerge-repo/src/helpers/cbor.ts), which writes each object as
/// a map of its properties in the order they were set, a `Uint8Array` as a
/// byte string and a property set to `undefined` as CBOR `undefined`. Each
/// test says where the fields and their order come from; the bytes are put
/// together by hand (``HandCBOR``), not by our encoder.
@Suite("Repo messages: bytes as automerge-repo sends them")
struct RepoMessageJSBytesTests {
    func decode(_ bytes: [UInt8]) throws -> RepoMessage { try RepoMessage(decoding: bytes) }

    /// A Repo's peer metadata, `{ storageId, isEphemeral }` (src/Repo.ts, myPeerMetadata); a
    /// repo without storage sets storageId to `await storageSubsystem?.id()`, i.e. undefined.
    func metadata(storageId: String?, isEphemeral: Bool) -> [UInt8] {
        HandCBOR.map(["storageId": storageId.map(HandCBOR.text) ?? HandCBOR.undefined,
                      "isEphemeral": isEphemeral ? HandCBOR.true : HandCBOR.false])
    }

    @Test("join, as WebSocketClientAdapter's joinMessage() writes it, from a repo with storage and one without")
    func join() throws {
        // automerge-repo-network-websocket/src/WebSocketClientAdapter.ts, joinMessage():
        // { type: "join", senderId, peerMetadata, supportedProtocolVersions: [ProtocolV1] } (ProtocolV1 = "1",
        // protocolVersion.ts); peerMetadata is the Repo's (see `metadata`).
        let repos: [(storageId: String?, isEphemeral: Bool, expected: PeerMetadata)] = [
            ("a1b2c3d4-storage", false, PeerMetadata(storageId: Sample.clientStorage)),
            (nil, true, PeerMetadata(storageId: nil, isEphemeral: true)),
        ]
        for repo in repos {
            let bytes = HandCBOR.map([
                "type": HandCBOR.text("join"),
                "senderId": HandCBOR.text("client-3c2e"),
                "peerMetadata": metadata(storageId: repo.storageId, isEphemeral: repo.isEphemeral),
                "supportedProtocolVersions": HandCBOR.array([HandCBOR.text("1")]),
            ])
            #expect(try decode(bytes) == .join(senderId: Sample.client, supportedProtocolVersions: ["1"],
                                               peerMetadata: repo.expected))
        }
    }

    @Test("join with its metadata under the README's key, or without supportedProtocolVersions")
    func joinVariants() throws {
        // The websocket README's CDDL names the entry `metadata` (samod reads both); an adapter
        // connected without metadata sends `{}` (WebSocketClientAdapter.connect: `peerMetadata ?? {}`).
        let underMetadata = HandCBOR.map(["type": HandCBOR.text("join"), "senderId": HandCBOR.text("client-3c2e"),
                                          "supportedProtocolVersions": HandCBOR.array([HandCBOR.text("1")]),
                                          "metadata": HandCBOR.map([:])])
        #expect(try decode(underMetadata) == .join(senderId: Sample.client, peerMetadata: PeerMetadata()))
        // WebSocketServerAdapter's selectProtocol() takes an absent supportedProtocolVersions as version 1.
        let bare = HandCBOR.map(["type": HandCBOR.text("join"), "senderId": HandCBOR.text("client-3c2e")])
        #expect(try decode(bare) == .join(senderId: Sample.client, supportedProtocolVersions: nil))
    }

    @Test("peer, as WebSocketServerAdapter answers a join")
    func peer() throws {
        // WebSocketServerAdapter.ts, receiveMessage(): { type: "peer", senderId, peerMetadata,
        // selectedProtocolVersion: ProtocolV1, targetId }; peerMetadata is the server Repo's.
        let bytes = HandCBOR.map([
            "type": HandCBOR.text("peer"),
            "senderId": HandCBOR.text("storage-server-sync-automerge-org"),
            "peerMetadata": metadata(storageId: "e5f6a7b8-storage", isEphemeral: false),
            "selectedProtocolVersion": HandCBOR.text("1"),
            "targetId": HandCBOR.text("client-3c2e"),
        ])
        #expect(try decode(bytes) == .peer(senderId: Sample.server, selectedProtocolVersion: "1", targetId: Sample.client,
                                           peerMetadata: PeerMetadata(storageId: Sample.otherStorage)))
    }

    @Test("error, as WebSocketServerAdapter refuses a protocol version; and as samod writes it")
    func error() throws {
        // WebSocketServerAdapter.ts: { type: "error", senderId, message: "unsupported protocol version", targetId }.
        let js = HandCBOR.map([
            "type": HandCBOR.text("error"),
            "senderId": HandCBOR.text("storage-server-sync-automerge-org"),
            "message": HandCBOR.text("unsupported protocol version"),
            "targetId": HandCBOR.text("client-3c2e"),
        ])
        #expect(try decode(js) == .error(message: "unsupported protocol version", senderId: Sample.server,
                                         targetId: Sample.client))
        // samod-core/src/network/wire_protocol.rs and the README's CDDL: { type: "error", message }.
        let samod = HandCBOR.map(["type": HandCBOR.text("error"), "message": HandCBOR.text("bad")])
        #expect(try decode(samod) == .error(message: "bad"))
    }

    @Test("leave, as the websocket README's CDDL has it")
    func leave() throws {
        // README.md, "Leave": { type: "leave", senderId }. Written out in full:
        let bytes = hex("a2 64 74797065 65 6c65617665 68 73656e6465724964 6b 636c69656e742d33633265")
        #expect(try decode(bytes) == .leave(senderId: Sample.client))
    }

    @Test("sync and request, as DocSynchronizer makes them and NetworkSubsystem adds senderId")
    func syncAndRequest() throws {
        // DocSynchronizer.ts: { type: "sync" | "request", targetId, documentId, data }, then
        // NetworkSubsystem.ts prepareMessage(): { ...message, senderId } (so senderId comes last).
        for type in ["sync", "request"] {
            let bytes = HandCBOR.map([
                "type": HandCBOR.text(type),
                "targetId": HandCBOR.text("storage-server-sync-automerge-org"),
                "documentId": HandCBOR.text("4NMNnkMhL8jXrdJ9jamS58PAVdXu"),
                "data": HandCBOR.bytes(Sample.syncData),
                "senderId": HandCBOR.text("client-3c2e"),
            ])
            let expected: RepoMessage = type == "sync"
                ? .sync(senderId: Sample.client, targetId: Sample.server, documentId: Sample.documentId, data: Sample.syncData)
                : .request(senderId: Sample.client, targetId: Sample.server, documentId: Sample.documentId,
                           data: Sample.syncData)
            #expect(try decode(bytes) == expected)
        }
    }

    @Test("sync data under tag 64, as cbor-x writes a Uint8Array with its default options, reads as plain bytes")
    func taggedUint8Array() throws {
        let bytes = HandCBOR.map([
            "type": HandCBOR.text("sync"),
            "targetId": HandCBOR.text("storage-server-sync-automerge-org"),
            "documentId": HandCBOR.text("4NMNnkMhL8jXrdJ9jamS58PAVdXu"),
            "data": [0xD8, 64] + HandCBOR.bytes(Sample.syncData),  // tag 64 (RFC 8746 uint8 typed array)
            "senderId": HandCBOR.text("client-3c2e"),
        ])
        #expect(try decode(bytes) == .sync(senderId: Sample.client, targetId: Sample.server,
                                           documentId: Sample.documentId, data: Sample.syncData))
        // Any other tag over the bytes is still the wrong kind.
        let otherTag = HandCBOR.map([
            "type": HandCBOR.text("sync"), "targetId": HandCBOR.text("s"),
            "documentId": HandCBOR.text("4NMNnkMhL8jXrdJ9jamS58PAVdXu"),
            "data": [0xD8, 65] + HandCBOR.bytes(Sample.syncData), "senderId": HandCBOR.text("c"),
        ])
        #expect(throws: RepoMessageError.self) { try decode(otherTag) }
    }

    @Test("doc-unavailable, as DocSynchronizer makes it")
    func docUnavailable() throws {
        // DocSynchronizer.ts: { type: "doc-unavailable", documentId, targetId }, then senderId (NetworkSubsystem).
        let bytes = HandCBOR.map([
            "type": HandCBOR.text("doc-unavailable"),
            "documentId": HandCBOR.text("4NMNnkMhL8jXrdJ9jamS58PAVdXu"),
            "targetId": HandCBOR.text("client-3c2e"),
            "senderId": HandCBOR.text("storage-server-sync-automerge-org"),
        ])
        #expect(try decode(bytes) == .docUnavailable(senderId: Sample.server, targetId: Sample.client,
                                                     documentId: Sample.documentId))
    }

    @Test("ephemeral, as DocSynchronizer makes it and NetworkSubsystem numbers it")
    func ephemeral() throws {
        // DocSynchronizer.ts #sendEphemeralMessage: { type: "ephemeral", targetId, documentId, data };
        // NetworkSubsystem.ts prepareMessage(): { ...message, count: ++count, sessionId, senderId };
        // sessionId is Math.random().toString(36).slice(2); data is cbor-x of the broadcast value (DocHandle.broadcast).
        let presence = HandCBOR.map(["cursor": [0x18, 0x2a]])  // { cursor: 42 }
        let bytes = HandCBOR.map([
            "type": HandCBOR.text("ephemeral"),
            "targetId": HandCBOR.text("storage-server-sync-automerge-org"),
            "documentId": HandCBOR.text("4NMNnkMhL8jXrdJ9jamS58PAVdXu"),
            "data": HandCBOR.bytes(presence),
            "count": [0x03],
            "sessionId": HandCBOR.text("k3j5h2q9x1"),
            "senderId": HandCBOR.text("client-3c2e"),
        ])
        #expect(try decode(bytes) == .ephemeral(senderId: Sample.client, targetId: Sample.server, count: 3,
                                                sessionId: "k3j5h2q9x1", documentId: Sample.documentId,
                                                data: presence))
    }

    @Test("remote-subscription-change, as Repo.ts relays a subscription, with remove undefined")
    func remoteSubscriptionChange() throws {
        // Repo.ts: { type: "remote-subscription-change", targetId, add: message.add, remove: message.remove },
        // then senderId; either list may be undefined (samod's decoder notes `remove: undefined` from JS).
        let bytes = HandCBOR.map([
            "type": HandCBOR.text("remote-subscription-change"),
            "targetId": HandCBOR.text("storage-server-sync-automerge-org"),
            "add": HandCBOR.array([HandCBOR.text("e5f6a7b8-storage")]),
            "remove": HandCBOR.undefined,
            "senderId": HandCBOR.text("client-3c2e"),
        ])
        #expect(try decode(bytes) == .remoteSubscriptionChange(senderId: Sample.client, targetId: Sample.server,
                                                               add: [Sample.otherStorage], remove: nil))
    }

    @Test("remote-heads-changed, as Repo.ts reports heads, the timestamp as an integer or a float64")
    func remoteHeadsChanged() throws {
        // Repo.ts: { type: "remote-heads-changed", targetId, documentId,
        // newHeads: { [storageId]: { heads, timestamp } } }, then senderId. timestamp is Date.now():
        // cbor-x may write such a number as a float64 (samod's decode_u64_or_f64 says so), or as an integer.
        let timestamps: [[UInt8]] = [hex("fb 42797eb567000000"), hex("1b 00000197 eb567000")]
        for timestamp in timestamps {
            let bytes = HandCBOR.map([
                "type": HandCBOR.text("remote-heads-changed"),
                "targetId": HandCBOR.text("client-3c2e"),
                "documentId": HandCBOR.text("4NMNnkMhL8jXrdJ9jamS58PAVdXu"),
                "newHeads": HandCBOR.map([
                    "e5f6a7b8-storage": HandCBOR.map([
                        "heads": HandCBOR.array([HandCBOR.text("An6Ui6sE1F")]),
                        "timestamp": timestamp,
                    ]),
                ]),
                "senderId": HandCBOR.text("storage-server-sync-automerge-org"),
            ])
            let expected = RepoMessage.remoteHeadsChanged(
                senderId: Sample.server, targetId: Sample.client, documentId: Sample.documentId,
                newHeads: [Sample.otherStorage: RemoteHeads(heads: ["An6Ui6sE1F"], timestamp: 1_752_000_000_000)])
            #expect(try decode(bytes) == expected)
        }
    }

    @Test("types we do not know decode to unknown, whatever else they hold, as automerge-repo ignores them")
    func unknownTypes() throws {
        // NetworkSubsystem.ts drops a message for which isRepoMessage() is false ("invalid message");
        // the broadcast-channel adapters' "arrive"/"welcome" are such types on a WebSocket.
        let arrive = HandCBOR.map(["type": HandCBOR.text("arrive"), "senderId": HandCBOR.text("client-3c2e"),
                                   "peerMetadata": HandCBOR.map([:])])
        #expect(try decode(arrive) == .unknown(type: "arrive"))
        let odd = HandCBOR.map(["type": HandCBOR.text("Sync"), "data": HandCBOR.null])
        #expect(try decode(odd) == .unknown(type: "Sync"), "type names are case-sensitive")
        #expect(try decode(HandCBOR.map(["type": HandCBOR.text("")])) == .unknown(type: ""))
    }

    @Test("fields no message uses are ignored, and so are entries whose keys are not text")
    func extraFields() throws {
        var bytes = HandCBOR.head(5, 4)
        bytes += HandCBOR.text("type") + HandCBOR.text("leave")
        bytes += HandCBOR.text("senderId") + HandCBOR.text("client-3c2e")
        bytes += HandCBOR.text("traceparent") + HandCBOR.array([HandCBOR.null])
        bytes += [0x01] + HandCBOR.text("an integer key")
        #expect(try decode(bytes) == .leave(senderId: Sample.client))
    }

    @Test("a document id sent as its 16 bytes is read, as samod reads it")
    func binaryDocumentId() throws {
        let bytes = HandCBOR.map([
            "type": HandCBOR.text("doc-unavailable"),
            "documentId": HandCBOR.bytes(Sample.documentId.bytes),
            "targetId": HandCBOR.text("client-3c2e"),
            "senderId": HandCBOR.text("storage-server-sync-automerge-org"),
        ])
        #expect(try decode(bytes) == .docUnavailable(senderId: Sample.server, targetId: Sample.client,
                                                     documentId: Sample.documentId))
    }

    @Test("lengths in a longer form than needed are read, as cbor-x may write them")
    func nonPreferredLengths() throws {
        // "leave" with each string's length in a one-byte argument (0x78 n) instead of in the head.
        let bytes = hex("b9 0002  78 04 74797065  78 05 6c65617665  78 08 73656e6465724964  78 0b 636c69656e742d33633265")
        #expect(try decode(bytes) == .leave(senderId: Sample.client))
    }
}

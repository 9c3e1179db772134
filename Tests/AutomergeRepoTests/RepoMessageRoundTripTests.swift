import Testing
@testable import AutomergeRepoProtocol

/// Every message we write reads back as itself, and what we write is the
/// map automerge-repo expects: text keys, `type` first, ids as strings.
@Suite("Repo messages: round trips")
struct RepoMessageRoundTripTests {
    static let metadata = PeerMetadata(storageId: Sample.clientStorage, isEphemeral: false)

    static let messages: [RepoMessage] = [
        .join(senderId: Sample.client, peerMetadata: metadata),
        .join(senderId: Sample.client, supportedProtocolVersions: nil, peerMetadata: nil),
        .join(senderId: Sample.client, supportedProtocolVersions: ["1", "2"],
                    peerMetadata: PeerMetadata(isEphemeral: true)),
        .peer(senderId: Sample.server, targetId: Sample.client,
                    peerMetadata: PeerMetadata(storageId: Sample.otherStorage)),
        .peer(senderId: Sample.server, selectedProtocolVersion: "1", targetId: Sample.client),
        .error(message: "unsupported protocol version"),
        .error(message: "unsupported protocol version", senderId: Sample.server, targetId: Sample.client),
        .leave(senderId: Sample.client),
        .sync(senderId: Sample.client, targetId: Sample.server, documentId: Sample.documentId, data: Sample.syncData),
        .request(senderId: Sample.client, targetId: Sample.server, documentId: Sample.documentId, data: []),
        .docUnavailable(senderId: Sample.server, targetId: Sample.client, documentId: Sample.documentId),
        .ephemeral(senderId: Sample.client, targetId: Sample.server, count: 7, sessionId: "k3j5h2",
                         documentId: Sample.documentId, data: [0xa1, 0x61, 0x78, 0x01]),
        .ephemeral(senderId: Sample.client, targetId: Sample.server, count: .max, sessionId: "",
                         documentId: Sample.documentId, data: []),
        .remoteSubscriptionChange(senderId: Sample.client, targetId: Sample.server,
                                  add: [Sample.otherStorage], remove: nil),
        .remoteSubscriptionChange(senderId: Sample.client, targetId: Sample.server,
                                  add: nil, remove: [Sample.otherStorage, Sample.clientStorage]),
        .remoteSubscriptionChange(senderId: Sample.client, targetId: Sample.server, add: [], remove: []),
        .remoteHeadsChanged(senderId: Sample.server, targetId: Sample.client, documentId: Sample.documentId,
                            newHeads: [Sample.otherStorage: RemoteHeads(heads: ["An6Ui6sE1F", "qjcTRo6yXG"],
                                                                        timestamp: 1_752_000_000_000),
                                       Sample.clientStorage: RemoteHeads(heads: [], timestamp: 0)]),
        .remoteHeadsChanged(senderId: Sample.server, targetId: Sample.client, documentId: Sample.documentId,
                            newHeads: [:]),
        .unknown(type: "future-message"),
    ]

    @Test("each message decodes from its encoding to itself", arguments: messages)
    func roundTrip(_ message: RepoMessage) throws {
        let bytes = message.encoded()
        #expect(try RepoMessage(decoding: bytes) == message)
        // Written once, the bytes are stable: encoding the decoded message gives them again.
        #expect(try RepoMessage(decoding: bytes).encoded() == bytes)
    }

    @Test("every message kind is covered, and each reports its wire type")
    func typeNames() {
        let types = Set(Self.messages.map(\.type))
        #expect(types == ["join", "peer", "error", "leave", "sync", "request", "doc-unavailable", "ephemeral",
                          "remote-subscription-change", "remote-heads-changed", "future-message"])
    }

    @Test("leave is written byte for byte as a two-entry map, type first")
    func leaveBytes() {
        // a2, "type": "leave", "senderId": "client-3c2e"
        let expected = hex("""
            a2 64 74797065 65 6c65617665
            68 73656e6465724964 6b 636c69656e742d33633265
            """)
        #expect(RepoMessage.leave(senderId: Sample.client).encoded() == expected)
    }

    @Test("sync carries its document id as the base58check string and its data as a byte string")
    func syncLayout() throws {
        let message = RepoMessage.sync(senderId: Sample.client, targetId: Sample.server,
                                       documentId: Sample.documentId, data: Sample.syncData)
        let expected = HandCBOR.map([
            "type": HandCBOR.text("sync"),
            "senderId": HandCBOR.text(Sample.client.rawValue),
            "targetId": HandCBOR.text(Sample.server.rawValue),
            "documentId": HandCBOR.text(Sample.documentIdText),
            "data": HandCBOR.bytes(Sample.syncData),
        ])
        #expect(message.encoded() == expected)
    }

    @Test("peer metadata is written as peerMetadata, storageId left out when there is none")
    func metadataLayout() {
        let message = RepoMessage.join(senderId: Sample.client, peerMetadata: PeerMetadata(isEphemeral: true))
        let expected = HandCBOR.map([
            "type": HandCBOR.text("join"),
            "senderId": HandCBOR.text(Sample.client.rawValue),
            "supportedProtocolVersions": HandCBOR.array([HandCBOR.text("1")]),
            "peerMetadata": HandCBOR.map(["isEphemeral": HandCBOR.true]),
        ])
        #expect(message.encoded() == expected)
    }

    @Test("newHeads is written in storage id order, whatever the dictionary's order")
    func newHeadsOrder() throws {
        let heads = RemoteHeads(heads: ["An6Ui6sE1F"], timestamp: 5)
        let message = RepoMessage.remoteHeadsChanged(senderId: Sample.server, targetId: Sample.client,
                                                     documentId: Sample.documentId,
                                                     newHeads: ["b": heads, "a": heads, "c": heads])
        let value = try CBORValue.decode(message.encoded())
        guard case .map(let entries)? = value["newHeads"] else {
            Issue.record("newHeads is not a map")
            return
        }
        #expect(entries.map(\.key) == [text("a"), text("b"), text("c")])
    }
}

import Testing
@testable import AutomergeRepoProtocol

/// A peer's bytes are untrusted: a message with a required field missing, or
/// of the wrong kind, or bytes that are not a message at all, end in the
/// ``RepoMessageError`` that names what is wrong, never in a trap.
@Suite("Repo messages: typed errors")
struct RepoMessageErrorTests {
    static let sync = RepoMessage.sync(senderId: Sample.client, targetId: Sample.server,
                                       documentId: Sample.documentId, data: Sample.syncData)

    /// `message` written with field `key` set to `value`, or left out when `value` is nil.
    func bytes(_ message: RepoMessage, setting key: String, to value: CBORValue?) -> [UInt8] {
        guard case .map(var entries) = message.cbor else { preconditionFailure("messages are maps") }
        entries.removeAll { $0.key == text(key) }
        if let value { entries.append(.init(text(key), value)) }
        return CBORValue.map(entries).encoded()
    }

    /// Each message kind with the fields it cannot do without.
    static let required: [(RepoMessage, [String])] = [
        (.join(senderId: Sample.client), ["senderId"]),
        (.peer(senderId: Sample.server, targetId: Sample.client), ["senderId", "selectedProtocolVersion", "targetId"]),
        (.error(message: "no"), ["message"]),
        (.leave(senderId: Sample.client), ["senderId"]),
        (sync, ["senderId", "targetId", "documentId", "data"]),
        (.request(senderId: Sample.client, targetId: Sample.server, documentId: Sample.documentId, data: [1]),
         ["senderId", "targetId", "documentId", "data"]),
        (.docUnavailable(senderId: Sample.server, targetId: Sample.client, documentId: Sample.documentId),
         ["senderId", "targetId", "documentId"]),
        (.ephemeral(senderId: Sample.client, targetId: Sample.server, count: 1, sessionId: "s",
                    documentId: Sample.documentId, data: [1]),
         ["senderId", "targetId", "count", "sessionId", "documentId", "data"]),
        (.remoteSubscriptionChange(senderId: Sample.client, targetId: Sample.server), ["senderId", "targetId"]),
        (.remoteHeadsChanged(senderId: Sample.server, targetId: Sample.client, documentId: Sample.documentId,
                             newHeads: [:]), ["senderId", "targetId", "documentId", "newHeads"]),
    ]

    @Test("a required field that is absent, null or undefined is missingField(name)")
    func missingFields() {
        for (message, keys) in Self.required {
            for key in keys + ["type"] {
                for value in [nil, CBORValue.null, .undefined] {
                    #expect(decodingError(bytes(message, setting: key, to: value)) == .missingField(key),
                            "\(message.type) without \(key) (\(String(describing: value)))")
                }
            }
        }
    }

    @Test("a field of the wrong kind is wrongType(field, expected, found)")
    func wrongTypes() {
        let cases: [(RepoMessage, String, CBORValue, RepoMessageError)] = [
            (Self.sync, "type", .unsigned(1), .wrongType(field: "type", expected: .textString, found: .unsignedInteger)),
            (Self.sync, "data", text("AAEC"), .wrongType(field: "data", expected: .byteString, found: .textString)),
            (Self.sync, "senderId", .byteString([1]), .wrongType(field: "senderId", expected: .textString, found: .byteString)),
            (Self.sync, "documentId", .unsigned(7), .wrongType(field: "documentId", expected: .textString, found: .unsignedInteger)),
            (Self.required[7].0, "count", CBORValue(-1), .wrongType(field: "count", expected: .unsignedInteger, found: .negativeInteger)),
            (Self.required[7].0, "count", .float(1.5), .wrongType(field: "count", expected: .unsignedInteger, found: .float)),
            (Self.required[7].0, "count", .float(-1), .wrongType(field: "count", expected: .unsignedInteger, found: .float)),
            (Self.required[7].0, "sessionId", .bool(true), .wrongType(field: "sessionId", expected: .textString, found: .boolean)),
            (Self.required[0].0, "supportedProtocolVersions", text("1"),
             .wrongType(field: "supportedProtocolVersions", expected: .array, found: .textString)),
            (Self.required[0].0, "supportedProtocolVersions", .array([text("1"), .unsigned(2)]),
             .wrongType(field: "supportedProtocolVersions[1]", expected: .textString, found: .unsignedInteger)),
            (Self.required[0].0, "peerMetadata", .array([]), .wrongType(field: "peerMetadata", expected: .map, found: .array)),
            (Self.required[0].0, "peerMetadata", .textMap(["isEphemeral": text("yes")]),
             .wrongType(field: "peerMetadata.isEphemeral", expected: .boolean, found: .textString)),
            (Self.required[0].0, "metadata", .textMap(["storageId": .unsigned(3)]),
             .wrongType(field: "metadata.storageId", expected: .textString, found: .unsignedInteger)),
            (Self.required[2].0, "senderId", .unsigned(0), .wrongType(field: "senderId", expected: .textString, found: .unsignedInteger)),
            (Self.required[8].0, "add", .array([.null]), .wrongType(field: "add[0]", expected: .textString, found: .null)),
            (Self.required[8].0, "remove", .textMap([:]), .wrongType(field: "remove", expected: .array, found: .map)),
            (Self.required[9].0, "newHeads", .array([]), .wrongType(field: "newHeads", expected: .map, found: .array)),
            (Self.required[9].0, "newHeads", .map([.init(.unsigned(1), .textMap([:]))]),
             .wrongType(field: "newHeads (a key)", expected: .textString, found: .unsignedInteger)),
            (Self.required[9].0, "newHeads", .textMap(["s1": .array([])]),
             .wrongType(field: "newHeads.s1", expected: .map, found: .array)),
            (Self.required[9].0, "newHeads", .textMap(["s1": .textMap(["heads": .array([])])]),
             .missingField("newHeads.s1.timestamp")),
            (Self.required[9].0, "newHeads", .textMap(["s1": .textMap(["timestamp": .unsigned(1)])]),
             .missingField("newHeads.s1.heads")),
            (Self.required[9].0, "newHeads", .textMap(["s1": .textMap(["heads": .array([.byteString([])]), "timestamp": .unsigned(1)])]),
             .wrongType(field: "newHeads.s1.heads[0]", expected: .textString, found: .byteString)),
        ]
        for (message, key, value, expected) in cases {
            #expect(decodingError(bytes(message, setting: key, to: value)) == expected, "\(message.type).\(key)")
        }
    }

    @Test("a document id that is not 16 bytes of base58check is invalidDocumentId")
    func invalidDocumentIds() {
        #expect(decodingError(bytes(Self.sync, setting: "documentId", to: text("badbadbad"))) ==
            .invalidDocumentId(field: "documentId", .notBase58Check(.checksumMismatch)))
        // automerge-repo's `badUuidDocumentId`: valid base58check of 8 bytes, which JS accepts and samod and we refuse.
        #expect(decodingError(bytes(Self.sync, setting: "documentId", to: text("26ysEKpJvtSbiBL8"))) ==
            .invalidDocumentId(field: "documentId", .wrongLength(byteCount: 8)))
        #expect(decodingError(bytes(Self.sync, setting: "documentId", to: .byteString([1, 2, 3]))) ==
            .invalidDocumentId(field: "documentId", .wrongLength(byteCount: 3)))
        // An automerge: URL is not a document id.
        #expect(decodingError(bytes(Self.sync, setting: "documentId", to: text("automerge:" + Sample.documentIdText))) ==
            .invalidDocumentId(field: "documentId", .notBase58Check(.invalidCharacter(offset: 9))), "the colon")
    }

    @Test("an item that is not a map is notAMap")
    func notAMap() {
        #expect(decodingError(hex("80")) == .notAMap(found: .array))
        #expect(decodingError(hex("64 73796e63")) == .notAMap(found: .textString))
        #expect(decodingError(hex("f6")) == .notAMap(found: .null))
        #expect(decodingError(hex("c1 a0")) == .notAMap(found: .tagged))
    }

    @Test("a message longer than the limit is refused before decoding, whatever its bytes")
    func sizeLimit() throws {
        let message = Self.sync.encoded()
        #expect(try RepoMessage(decoding: message, maximumSize: message.count) == Self.sync)
        #expect(decodingError(message, maximumSize: message.count - 1) ==
            .tooLarge(byteCount: message.count, limit: message.count - 1))
        // Not CBOR at all, and still reported as too large: nothing was read.
        #expect(decodingError([UInt8](repeating: 0xff, count: 100), maximumSize: 99) == .tooLarge(byteCount: 100, limit: 99))
        #expect(decodingError([0xa0], maximumSize: 0) == .tooLarge(byteCount: 1, limit: 0))
        #expect(RepoMessage.defaultMaximumSize == 64 * 1024 * 1024)
    }

    @Test("bytes that are not well-formed CBOR are invalidCBOR with the decoder's reason")
    func malformedCBOR() {
        #expect(decodingError([]) == .invalidCBOR(.truncated(offset: 0)))
        // A map head claiming 2^64 - 1 entries, and a data string claiming 4 GiB, in a few bytes.
        #expect(decodingError(hex("bb ffffffffffffffff 00")) ==
            .invalidCBOR(.lengthExceedsInput(offset: 0, declared: .max, available: 1)))
        #expect(decodingError(hex("a1 64 64617461 5a ffffffff 00")) ==
            .invalidCBOR(.lengthExceedsInput(offset: 6, declared: 0xffff_ffff, available: 1)))
        // "type" twice: which one would count is ambiguous, so neither does.
        #expect(decodingError(hex("a2 64 74797065 64 73796e63 64 74797065 65 6c65617665")) ==
            .invalidCBOR(.duplicateMapKey(offset: 11)))
        #expect(decodingError(Self.sync.encoded() + [0x00]) ==
            .invalidCBOR(.trailingBytes(offset: Self.sync.encoded().count)))
        let deep = [UInt8](repeating: 0x81, count: 100) + [0x00]
        #expect(decodingError(hex("a1 64 64617461") + deep) == .invalidCBOR(.nestingTooDeep(offset: 69, limit: 64)))
    }

    @Test("every truncation of every message is a typed CBOR error")
    func truncations() {
        for (message, _) in Self.required {
            let whole = message.encoded()
            for length in 0..<whole.count {
                // A cut inside an item is `truncated`; a cut that leaves a map, array or
                // string with fewer bytes than its head counts is found first, as `lengthExceedsInput`.
                switch decodingError(Array(whole.prefix(length))) {
                case .invalidCBOR(.truncated)?, .invalidCBOR(.lengthExceedsInput)?: break
                case let other: Issue.record("\(message.type) cut to \(length) bytes: \(String(describing: other))")
                }
            }
        }
    }

    @Test("flipped bytes in messages decode or fail with a typed error, never trap")
    func mutations() {
        var state: UInt64 = 0x9e37_79b9_7f4a_7c15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        var decoded = 0, refused = 0
        for (message, _) in Self.required {
            let whole = message.encoded()
            for _ in 0..<300 {
                var bytes = whole
                for _ in 0...(next() % 3) {
                    bytes[Int(next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: next())
                }
                if decodingError(bytes) == nil { decoded += 1 } else { refused += 1 }
            }
        }
        #expect(decoded + refused == Self.required.count * 300)
        #expect(refused > 0)
    }
}

extension RepoMessage {
    /// The message that `bytes` (one WebSocket binary frame) hold.
    ///
    /// `bytes` longer than `maximumSize` are refused before they are decoded.
    /// Then the bytes must be one CBOR map (strictly read: see `CBORDecoder`)
    /// with a text `type`; a type we do not know gives ``unknown(type:)``,
    /// a known one must have each of its required fields, of the right kind.
    /// Fields no message uses are ignored; which fields are optional is said
    /// on each case.
    public init(decoding bytes: [UInt8], maximumSize: Int = RepoMessage.defaultMaximumSize) throws(RepoMessageError) {
        guard bytes.count <= maximumSize else { throw .tooLarge(byteCount: bytes.count, limit: maximumSize) }
        let value: CBORValue
        do {
            value = try CBORValue.decode(bytes)
        } catch {
            throw .invalidCBOR(error)
        }
        try self.init(cbor: value)
    }

    /// The message that the CBOR item `value` is.
    init(cbor value: CBORValue) throws(RepoMessageError) {
        let fields = try MessageFields(value)
        let type = try fields.text("type")
        switch type {
        case MessageType.join:
            self = .join(senderId: try fields.peerId("senderId"),
                         supportedProtocolVersions: try fields.optionalTextArray("supportedProtocolVersions"),
                         peerMetadata: try PeerMetadata(in: fields))
        case MessageType.peer:
            self = .peer(senderId: try fields.peerId("senderId"),
                         selectedProtocolVersion: try fields.text("selectedProtocolVersion"),
                         targetId: try fields.peerId("targetId"),
                         peerMetadata: try PeerMetadata(in: fields))
        case MessageType.error:
            self = .error(message: try fields.text("message"), senderId: try fields.optionalPeerId("senderId"),
                          targetId: try fields.optionalPeerId("targetId"))
        case MessageType.leave:
            self = .leave(senderId: try fields.peerId("senderId"))
        case MessageType.sync:
            self = .sync(senderId: try fields.peerId("senderId"), targetId: try fields.peerId("targetId"),
                         documentId: try fields.documentId("documentId"), data: try fields.bytes("data"))
        case MessageType.request:
            self = .request(senderId: try fields.peerId("senderId"), targetId: try fields.peerId("targetId"),
                            documentId: try fields.documentId("documentId"), data: try fields.bytes("data"))
        case MessageType.docUnavailable:
            self = .docUnavailable(senderId: try fields.peerId("senderId"), targetId: try fields.peerId("targetId"),
                                   documentId: try fields.documentId("documentId"))
        case MessageType.ephemeral:
            self = .ephemeral(senderId: try fields.peerId("senderId"), targetId: try fields.peerId("targetId"),
                              count: try fields.unsigned("count"), sessionId: try fields.text("sessionId"),
                              documentId: try fields.documentId("documentId"), data: try fields.bytes("data"))
        case MessageType.remoteSubscriptionChange:
            self = .remoteSubscriptionChange(senderId: try fields.peerId("senderId"),
                                             targetId: try fields.peerId("targetId"),
                                             add: try fields.optionalTextArray("add")?.map { StorageId($0) },
                                             remove: try fields.optionalTextArray("remove")?.map { StorageId($0) })
        case MessageType.remoteHeadsChanged:
            self = .remoteHeadsChanged(senderId: try fields.peerId("senderId"), targetId: try fields.peerId("targetId"),
                                       documentId: try fields.documentId("documentId"),
                                       newHeads: try RemoteHeads.byStorageId(in: fields))
        default:
            self = .unknown(type: type)
        }
    }
}

extension PeerMetadata {
    /// The metadata of a `join` or `peer`: its `peerMetadata` entry (as
    /// automerge-repo and samod write it) or else its `metadata` entry (as
    /// the CDDL of automerge-repo-network-websocket's README spells it, and
    /// samod reads too); `nil` when neither is there.
    init?(in message: MessageFields) throws(RepoMessageError) {
        var found = try message.optionalFields("peerMetadata")
        if found == nil { found = try message.optionalFields("metadata") }
        guard let fields = found else { return nil }
        self.init(storageId: try fields.optionalText("storageId").map { StorageId($0) },
                  isEphemeral: try fields.optionalBool("isEphemeral") ?? false)
    }
}

extension RemoteHeads {
    /// The `newHeads` map of a `remote-heads-changed`: text storage ids, each
    /// to a map of `heads` (text strings) and `timestamp` (a whole number).
    static func byStorageId(in message: MessageFields) throws(RepoMessageError) -> [StorageId: RemoteHeads] {
        var result: [StorageId: RemoteHeads] = [:]
        for entry in try message.map("newHeads") {
            let storageId = try MessageFields.text(entry.key, field: "newHeads (a key)")
            let fields = try MessageFields(entry.value, path: "newHeads.\(storageId)")
            // The CBOR decoder refuses duplicate keys, so no storage id is overwritten.
            result[StorageId(storageId)] = RemoteHeads(heads: try fields.textArray("heads"),
                                                       timestamp: try fields.unsigned("timestamp"))
        }
        return result
    }
}

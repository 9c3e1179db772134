extension RepoMessage {
    /// The message as automerge-repo writes it: a CBOR map with text keys,
    /// `type` first, document ids as base58check strings, `data` as a byte
    /// string, absent optional fields left out (never written as `null`).
    public func encoded() -> [UInt8] { cbor.encoded() }

    /// The message as a CBOR map.
    var cbor: CBORValue {
        var map = MessageMapWriter(type: type)
        switch self {
        case let .join(senderId, versions, metadata):
            map.add("senderId", senderId)
            map.add("supportedProtocolVersions", versions.map { .array($0.map(CBORValue.textString)) })
            map.add("peerMetadata", metadata?.cbor)
        case let .peer(senderId, version, targetId, metadata):
            map.add("senderId", senderId)
            map.add("selectedProtocolVersion", .textString(version))
            map.add("targetId", targetId)
            map.add("peerMetadata", metadata?.cbor)
        case let .error(message, senderId, targetId):
            map.add("senderId", senderId)
            map.add("targetId", targetId)
            map.add("message", .textString(message))
        case let .leave(senderId):
            map.add("senderId", senderId)
        case let .sync(senderId, targetId, documentId, data), let .request(senderId, targetId, documentId, data):
            map.addRoute(senderId, targetId, documentId)
            map.add("data", .byteString(data))
        case let .docUnavailable(senderId, targetId, documentId):
            map.addRoute(senderId, targetId, documentId)
        case let .ephemeral(senderId, targetId, count, sessionId, documentId, data):
            map.add("senderId", senderId)
            map.add("targetId", targetId)
            map.add("count", .unsigned(count))
            map.add("sessionId", .textString(sessionId))
            map.add("documentId", documentId)
            map.add("data", .byteString(data))
        case let .remoteSubscriptionChange(senderId, targetId, add, remove):
            map.add("senderId", senderId)
            map.add("targetId", targetId)
            map.add("add", add.map(Self.storageIds))
            map.add("remove", remove.map(Self.storageIds))
        case let .remoteHeadsChanged(senderId, targetId, documentId, newHeads):
            map.addRoute(senderId, targetId, documentId)
            map.add("newHeads", .map(newHeads.sorted { $0.key < $1.key }.map {
                CBORValue.MapEntry(.textString($0.key.rawValue), $0.value.cbor)
            }))
        case .unknown:
            break
        }
        return .map(map.entries)
    }

    private static func storageIds(_ ids: [StorageId]) -> CBORValue {
        .array(ids.map { .textString($0.rawValue) })
    }
}

extension PeerMetadata {
    /// `{storageId?, isEphemeral}`, as automerge-repo's `Repo` and samod write it.
    var cbor: CBORValue {
        var entries: [CBORValue.MapEntry] = []
        if let storageId { entries.append(.init(.textString("storageId"), .textString(storageId.rawValue))) }
        entries.append(.init(.textString("isEphemeral"), .bool(isEphemeral)))
        return .map(entries)
    }
}

extension RemoteHeads {
    /// `{heads, timestamp}`.
    var cbor: CBORValue {
        .textMap(["heads": .array(heads.map(CBORValue.textString)), "timestamp": .unsigned(timestamp)])
    }
}

/// The entries of a message's map, in the order they are added, optional ones left out when `nil`.
private struct MessageMapWriter {
    private(set) var entries: [CBORValue.MapEntry]

    init(type: String) {
        entries = [.init(.textString("type"), .textString(type))]
    }

    mutating func add(_ key: String, _ value: CBORValue?) {
        if let value { entries.append(.init(.textString(key), value)) }
    }

    mutating func add<Role>(_ key: String, _ id: RepoIdentifier<Role>?) {
        add(key, id.map { .textString($0.rawValue) })
    }

    mutating func add(_ key: String, _ id: DocumentId) {
        add(key, .textString(id.description))
    }

    /// `senderId`, `targetId` and `documentId`, which most document messages begin with.
    mutating func addRoute(_ senderId: PeerId, _ targetId: PeerId, _ documentId: DocumentId) {
        add("senderId", senderId)
        add("targetId", targetId)
        add("documentId", documentId)
    }
}

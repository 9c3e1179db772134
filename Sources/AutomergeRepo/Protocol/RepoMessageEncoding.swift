extension RepoMessage {
    /// The message as automerge-repo writes it: a CBOR map with text keys,
    /// `type` first, document ids as base58check strings, `data` as a byte
    /// string, absent optional fields left out (never written as `null`).
    public func encoded() -> [UInt8] { cbor.encoded() }

    /// The message as a CBOR map.
    var cbor: CBORValue {
        var map = MessageMapWriter(type: type)
        switch self {
        case .join(let join):
            map.add("senderId", join.senderId)
            map.add("supportedProtocolVersions", join.supportedProtocolVersions.map { .array($0.map(CBORValue.textString)) })
            map.add("peerMetadata", join.peerMetadata?.cbor)
        case .peer(let peer):
            map.add("senderId", peer.senderId)
            map.add("selectedProtocolVersion", .textString(peer.selectedProtocolVersion))
            map.add("targetId", peer.targetId)
            map.add("peerMetadata", peer.peerMetadata?.cbor)
        case .error(let report):
            map.add("senderId", report.senderId)
            map.add("targetId", report.targetId)
            map.add("message", .textString(report.message))
        case .leave(let leave):
            map.add("senderId", leave.senderId)
        case .sync(let sync), .request(let sync):
            map.add("senderId", sync.senderId)
            map.add("targetId", sync.targetId)
            map.add("documentId", sync.documentId)
            map.add("data", .byteString(sync.data))
        case .docUnavailable(let unavailable):
            map.add("senderId", unavailable.senderId)
            map.add("targetId", unavailable.targetId)
            map.add("documentId", unavailable.documentId)
        case .ephemeral(let ephemeral):
            map.add("senderId", ephemeral.senderId)
            map.add("targetId", ephemeral.targetId)
            map.add("count", .unsigned(ephemeral.count))
            map.add("sessionId", .textString(ephemeral.sessionId))
            map.add("documentId", ephemeral.documentId)
            map.add("data", .byteString(ephemeral.data))
        case .remoteSubscriptionChange(let change):
            map.add("senderId", change.senderId)
            map.add("targetId", change.targetId)
            map.add("add", change.add.map(Self.storageIds))
            map.add("remove", change.remove.map(Self.storageIds))
        case .remoteHeadsChanged(let changed):
            map.add("senderId", changed.senderId)
            map.add("targetId", changed.targetId)
            map.add("documentId", changed.documentId)
            map.add("newHeads", .map(changed.newHeads.sorted { $0.key < $1.key }.map {
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
}

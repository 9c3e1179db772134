/// What one peer knows about another during sync: Rust's `sync::State`
/// (0.11), field for field, so that the protocol's decisions are Rust's.
///
/// Hash lists are kept as the peer sent them (Rust compares them as
/// vectors, order included); lists this side makes are sorted.
struct PeerSyncState: Hashable, Sendable {
    /// Heads both sides are known to have.
    var sharedHeads: [ChangeHash] = []
    /// Our heads when we last sent a message.
    var lastSentHeads: [ChangeHash] = []
    /// The heads their last message announced (nil before any message).
    var theirHeads: [ChangeHash]?
    /// What their last message asked for.
    var theirNeed: [ChangeHash]?
    /// Their last message's summaries of what they have.
    var theirHave: [SyncHave]?
    /// Changes sent this session and not yet known to have arrived.
    var sentHashes: Set<ChangeHash> = []
    /// Whether a message we sent awaits an answer.
    var inFlight = false
    /// Whether we have sent at least one message this session.
    var haveResponded = false
    /// What their flags said they support (nil until a message with a trailer arrives).
    var theirCapabilities: Capabilities?
    /// We do not apply what they send.
    var isReadOnly = false
    /// Their last message said they do not apply what we send.
    var isPeerReadOnly = false
    /// Our next message asks them to forget what they sent (set when we stop being read-only).
    var needsReset = false

    /// What a peer's flags trailer says it understands.
    struct Capabilities: Hashable, Sendable {
        var messageV2: Bool
        var syncReset: Bool
    }

    static let encodingType: UInt8 = 0x43

    init(readOnly: Bool = false) {
        isReadOnly = readOnly
    }

    var supportsV2Messages: Bool { theirCapabilities?.messageV2 ?? false }
    var peerSupportsSyncReset: Bool { theirCapabilities?.syncReset ?? false }

    /// They announced empty heads and read V2: send the whole document.
    var shouldSendWholeDocument: Bool { theirHeads == [] && supportsV2Messages }

    /// The persisted form: `0x43` and the shared heads. Everything else
    /// belongs to one connection.
    func encoded() -> [UInt8] {
        var out: [UInt8] = [Self.encodingType]
        LEB128.appendUnsigned(UInt64(sharedHeads.count), to: &out)
        for hash in sharedHeads { out.append(contentsOf: hash.bytes) }
        return out
    }

    /// A state from its persisted form. As in Rust, everything but the
    /// shared heads starts fresh, with an empty "have" list from them, and
    /// bytes after the heads are ignored.
    init(decoding bytes: ArraySlice<UInt8>) throws(DecodeSyncStateError) {
        var reader = ByteReader(bytes)
        guard let type = try? reader.readByte("sync state type") else { throw DecodeSyncStateError(.empty) }
        guard type == Self.encodingType else { throw DecodeSyncStateError(.unknownType(type)) }
        do {
            sharedHeads = try reader.readHashes("shared heads")
        } catch {
            throw DecodeSyncStateError(.malformed(error))
        }
        theirHave = []
    }

    /// Rust's `set_read_only`: becoming writable starts the session over
    /// (keeping what we know they support) and asks them to resend what we
    /// ignored; becoming read-only makes the next message go out, so that
    /// they learn it.
    mutating func setReadOnly(_ readOnly: Bool) {
        guard readOnly != isReadOnly else { return }
        if isReadOnly {
            let capabilities = theirCapabilities
            self = PeerSyncState()
            theirCapabilities = capabilities
            needsReset = true
        } else {
            isReadOnly = true
            inFlight = false
            haveResponded = false
        }
    }
}

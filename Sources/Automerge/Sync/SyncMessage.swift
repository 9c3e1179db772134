#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One message of the sync protocol, as Rust's `sync::Message` (0.11).
///
/// Wire form: a type byte (`0x42` V1, `0x43` V2), the sender's heads, the
/// hashes it needs, its "have" summaries, the changes (each uLEB
/// length-prefixed, after a uLEB count), and an optional flags trailer.
/// V1 carries one change chunk per entry; V2 carries at most one entry
/// holding concatenated change chunks or a whole saved document.
public struct SyncMessage: Hashable, Sendable {
    /// The message format version (the type byte).
    public enum Version: UInt8, Hashable, Sendable {
        /// `0x42`: one change chunk per entry. Every implementation reads it.
        case v1 = 0x42
        /// `0x43`: one entry of concatenated chunks or a whole document;
        /// sent only to peers whose messages carried a flags trailer.
        case v2 = 0x43
    }

    /// The format version.
    public var version: Version
    /// The sender's heads (sorted when Rust or this package sends them).
    public var heads: [ChangeHash]
    /// Hashes the sender asks for explicitly.
    public var need: [ChangeHash]
    /// Summaries of what the sender has since each last sync.
    public var have: [SyncHave]
    /// Change chunks or saved documents for the recipient to apply, in order.
    public var changes: [[UInt8]]
    /// The flags trailer; nil when the message has none (Rust 0.5 and older peers).
    public var flags: SyncMessageFlags?

    /// A message from its parts.
    public init(version: Version = .v1, heads: [ChangeHash] = [], need: [ChangeHash] = [], have: [SyncHave] = [],
                changes: [[UInt8]] = [], flags: SyncMessageFlags? = nil) {
        self.version = version
        self.heads = heads
        self.need = need
        self.have = have
        self.changes = changes
        self.flags = flags
    }

    /// The message Rust sends to ask a peer to start over: our heads, one
    /// empty "have", nothing else, and only the "supports sync reset" flag.
    static func reset(heads: [ChangeHash]) -> SyncMessage {
        SyncMessage(version: .v1, heads: heads, have: [SyncHave()], flags: [.supportsSyncReset])
    }

    /// The message's bytes.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = [version.rawValue]
        out.reserveCapacity(1 + 32 * (heads.count + need.count) + changes.reduce(0) { $0 + $1.count + 5 } + 8)
        Self.append(heads, to: &out)
        Self.append(need, to: &out)
        LEB128.appendUnsigned(UInt64(have.count), to: &out)
        for entry in have {
            Self.append(entry.lastSync, to: &out)
            let bloom = entry.bloom.bytes
            LEB128.appendUnsigned(UInt64(bloom.count), to: &out)
            out.append(contentsOf: bloom)
        }
        LEB128.appendUnsigned(UInt64(changes.count), to: &out)
        for change in changes {
            LEB128.appendUnsigned(UInt64(change.count), to: &out)
            out.append(contentsOf: change)
        }
        flags?.append(to: &out)
        return out
    }

    /// The message's bytes, as `Data`.
    public func encode() -> Data { Data(encoded()) }

    private static func append(_ hashes: [ChangeHash], to out: inout [UInt8]) {
        LEB128.appendUnsigned(UInt64(hashes.count), to: &out)
        for hash in hashes { out.append(contentsOf: hash.bytes) }
    }
}

/// What a sync message's sender has: the heads of its last sync with the
/// recipient and a Bloom filter of every change it has added since.
public struct SyncHave: Hashable, Sendable {
    /// The heads both peers had when they last synced.
    public var lastSync: [ChangeHash]
    /// The sender's changes since `lastSync`.
    public var bloom: SyncBloomFilter

    /// A summary from its parts (by default, empty: "I have nothing you know of").
    public init(lastSync: [ChangeHash] = [], bloom: SyncBloomFilter = SyncBloomFilter()) {
        self.lastSync = lastSync
        self.bloom = bloom
    }
}

/// The flags trailer of a sync message.
///
/// Written as Rust 0.11 writes it: a uLEB count of 2, the legacy byte
/// `0x02` ("I read V2 messages", all that Rust 0.6 wrote, as `02 01 02`)
/// and one bitfield byte with its high bit set. Reading, bytes below
/// `0x80` are ignored and the low bits of the others are or-ed together;
/// a trailer of any content says its sender reads V2 messages.
public struct SyncMessageFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x7F }

    /// The recipient should forget which changes it has sent (the sender
    /// has just stopped being read-only and wants what it ignored).
    public static let syncReset = SyncMessageFlags(rawValue: 1 << 0)
    /// The sender does not apply changes it receives.
    public static let readOnly = SyncMessageFlags(rawValue: 1 << 1)
    /// The sender understands ``syncReset``.
    public static let supportsSyncReset = SyncMessageFlags(rawValue: 1 << 2)

    static let legacyV2Byte: UInt8 = 0x02
    static let bitfieldMarker: UInt8 = 0x80

    /// Flags read from a trailer's bytes.
    init(trailer: ArraySlice<UInt8>) {
        var bits: UInt8 = 0
        for byte in trailer where byte & Self.bitfieldMarker != 0 { bits |= byte }
        self.init(rawValue: bits)
    }

    func append(to out: inout [UInt8]) {
        out.append(2)
        out.append(Self.legacyV2Byte)
        out.append(Self.bitfieldMarker | rawValue)
    }
}

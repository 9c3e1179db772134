import Automerge
import Foundation

/// Sync messages and states as JSON, as `automerge sync-message` prints
/// them and `Vectors/sync` records them.
public enum SyncMessageJSON {
    /// `{"version","heads","need","have":[{"last_sync","bloom"}],"changes","change_bytes","flags"}`:
    /// `changes` counts the entries; `flags` is null without a trailer, else the bitfield's names.
    public static func describe(_ message: SyncMessage) -> JSONValue {
        let flags: JSONValue = message.flags.map { .array(flagNames($0).map(JSONValue.string)) } ?? .null
        return .object([
            "version": .number(message.version == .v1 ? "1" : "2"),
            "heads": hashes(message.heads),
            "need": hashes(message.need),
            "have": .array(message.have.map {
                .object(["last_sync": hashes($0.lastSync), "bloom": .string(Bytes.hex($0.bloom.bytes))])
            }),
            "changes": .number("\(message.changes.count)"),
            "change_bytes": .array(message.changes.map { .number("\($0.count)") }),
            "flags": flags,
        ])
    }

    /// The names of the flags set in a trailer, in bit order, as the JSON and the vectors spell them.
    static func flagNames(_ flags: SyncMessageFlags) -> [String] {
        let named: [(SyncMessageFlags, String)] = [
            (.syncReset, "sync_reset"), (.readOnly, "read_only"), (.supportsSyncReset, "supports_sync_reset"),
        ]
        return named.filter { flags.contains($0.0) }.map(\.1)
    }

    static func hashes(_ hashes: [ChangeHash]) -> JSONValue { .array(hashes.map { .string($0.description) }) }
}

import Automerge
import Foundation

/// Sync messages and states as JSON, as `automerge sync-message` prints
/// them and `Vectors/sync` records them.
public enum SyncMessageJSON {
    /// `{"version","heads","need","have":[{"last_sync","bloom"}],"changes","change_bytes","flags"}`:
    /// `changes` counts the entries; `flags` is null without a trailer, else the bitfield's names.
    public static func describe(_ message: SyncMessage) -> JSONValue {
        var flags: JSONValue = .null
        if let trailer = message.flags {
            var names: [JSONValue] = []
            if trailer.contains(.syncReset) { names.append(.string("sync_reset")) }
            if trailer.contains(.readOnly) { names.append(.string("read_only")) }
            if trailer.contains(.supportsSyncReset) { names.append(.string("supports_sync_reset")) }
            flags = .array(names)
        }
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

    static func hashes(_ hashes: [ChangeHash]) -> JSONValue { .array(hashes.map { .string($0.description) }) }
}

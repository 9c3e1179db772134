import Automerge
import Foundation

/// The sync-peer line protocol (`automerge sync-peer FILE|-`): how any
/// program lets the harness drive its sync. One command per line, exactly
/// one answer line each:
///
/// | command | answer |
/// |---|---|
/// | `GEN` | the next message as lowercase hex, or `NONE` |
/// | `RECV <hex>` | `OK`, or `ERR <why>` if the message is refused |
/// | `HEADS` | the heads, sorted lowercase hex, separated by spaces |
/// | `DUMP` | the canonical dump (Vectors/README.md) on one line |
/// | `SAVE <path>` | `OK` once the document is saved there |
/// | `PUT <key> <string...>` | `OK`: the string put at the root key, committed |
/// | `SPLICE <key> <pos> <del> <text...>` | `OK`: the Text at the root key (created if missing) spliced, committed |
/// | `RESET` | `OK`: a fresh sync state |
/// | `ENCODESTATE` | the sync state's persisted form as hex |
/// | `DECODESTATE <hex>` | `OK`, or `ERR <why>` |
/// | `READONLY on\|off` | `OK` (optional: `ERR unsupported` where a peer has no read-only mode) |
/// | `QUIT` | `OK`, then the program exits |
///
/// Any other line answers `ERR unknown command`.
public enum SyncPeerProtocol {
    /// The answer to one command line for `peer`, and whether to quit after it.
    public static func answer(_ line: String, peer: LocalSyncPeer) -> (answer: String, quit: Bool) {
        let (command, rest) = split(Substring(line))
        do {
            switch command {
            case "GEN": return (peer.generate().map(Bytes.hex) ?? "NONE", false)
            case "RECV":
                guard let message = Bytes.fromHex(rest) else { return ("ERR message is not hex", false) }
                try peer.receive(message)
            case "HEADS": return (peer.heads().map(\.description).joined(separator: " "), false)
            case "DUMP": return (CanonicalDump.dump(peer.document).serialized, false)
            case "SAVE":
                guard !rest.isEmpty else { return ("ERR SAVE needs a path", false) }
                try peer.save().write(to: URL(fileURLWithPath: String(rest)))
            case "PUT":
                let (key, value) = split(rest)
                guard !key.isEmpty else { return ("ERR PUT needs a key", false) }
                try peer.put(key: String(key), value: String(value))
            case "SPLICE":
                let (key, afterKey) = split(rest)
                let (position, afterPosition) = split(afterKey)
                let (delete, text) = split(afterPosition)
                guard !key.isEmpty, let position = Int(position), let delete = Int(delete), position >= 0 else {
                    return ("ERR usage: SPLICE <key> <pos> <del> <text...>", false)
                }
                try peer.splice(key: String(key), position: position, delete: delete, text: String(text))
            case "RESET": peer.resetState()
            case "ENCODESTATE": return (Bytes.hex(peer.encodeState()), false)
            case "DECODESTATE":
                guard let bytes = Bytes.fromHex(rest) else { return ("ERR state is not hex", false) }
                try peer.decodeState(bytes)
            case "READONLY":
                guard rest == "on" || rest == "off" else { return ("ERR usage: READONLY on|off", false) }
                peer.setReadOnly(rest == "on")
            case "QUIT": return ("OK", true)
            default: return ("ERR unknown command", false)
            }
            return ("OK", false)
        } catch {
            return ("ERR " + oneLine("\(error)"), false)
        }
    }

    /// The first space-separated word and everything after the one space that ends it.
    static func split(_ text: Substring) -> (Substring, Substring) {
        guard let space = text.firstIndex(of: " ") else { return (text, "") }
        return (text[..<space], text[text.index(after: space)...])
    }

    static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
    }
}

@_spi(Conformance) import Automerge
import Foundation

extension CanonicalDump {
    /// The dump of a loaded document as compact JSON bytes, written
    /// straight from the document rather than through a `JSONValue` tree
    /// (a dictionary per value, then its keys sorted): what `automerge dump`
    /// prints. Parsed, it equals ``dump(_:)``; map members keep the
    /// document's key order.
    public static func serialized(_ document: Document) -> [UInt8] {
        let snapshot = document.snapshot()
        var out: [UInt8] = []
        out += Array(#"{"changes":"#.utf8) + Array(String(snapshot.changes).utf8)
        out += Array(#","doc":"#.utf8)
        write(snapshot.root, to: &out)
        out += Array(#","heads":["#.utf8)
        for (index, head) in snapshot.heads.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(head.description, to: &out)
        }
        out += Array("]}".utf8)
        return out
    }

    private static func write(_ value: SnapshotValue, to out: inout [UInt8]) {
        switch value {
        case .map(let entries): writeMembers(tag: "map", entries, to: &out)
        case .table(let entries): writeMembers(tag: "table", entries, to: &out)
        case .list(let values):
            out += Array(#"{"list":["#.utf8)
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(value, to: &out)
            }
            out += Array("]}".utf8)
        case .text(let text, let marks):
            out.append(UInt8(ascii: "{"))
            if !marks.isEmpty {
                out += Array(#""marks":"#.utf8)
                Self.marks(marks).write(to: &out)
                out.append(UInt8(ascii: ","))
            }
            out += Array(#""text":"#.utf8)
            JSONValue.writeString(text, to: &out)
            out.append(UInt8(ascii: "}"))
        case .scalar(let primitive):
            let (tag, payload) = scalarMember(primitive)
            out.append(UInt8(ascii: "{"))
            JSONValue.writeString(tag, to: &out)
            out.append(UInt8(ascii: ":"))
            payload.write(to: &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeMembers(tag: String, _ entries: [(key: String, value: SnapshotValue)], to out: inout [UInt8]) {
        out += Array("{\"\(tag)\":{".utf8)
        for (index, entry) in entries.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(entry.key, to: &out)
            out.append(UInt8(ascii: ":"))
            write(entry.value, to: &out)
        }
        out += Array("}}".utf8)
    }
}

@_spi(Conformance) import Automerge
import Foundation

/// The canonical dump of `../shared/reference/dump-format.md`: one JSON
/// value describing what a reader sees in an Automerge file, so that two
/// implementations can be compared on the same bytes.
public enum CanonicalDump {
    /// The dump of a loaded document.
    public static func dump(_ document: Document) -> JSONValue {
        let snapshot = document.snapshot()
        return .object([
            "heads": .array(snapshot.heads.map { .string($0.description) }),
            "changes": .number(String(snapshot.changes)),
            "doc": value(snapshot.root),
        ])
    }

    /// The dump of a file: its document, or `{"error": message}` when it does not load.
    public static func dump(bytes: Data) -> (json: JSONValue, loaded: Bool) {
        do {
            return (dump(try Document(bytes)), true)
        } catch {
            return (failure(error), false)
        }
    }

    /// The dump of a file that does not load: `{"error": message}`.
    public static func failure(_ error: any Error) -> JSONValue {
        .object(["error": .string(String(describing: error))])
    }

    static func value(_ value: SnapshotValue) -> JSONValue {
        switch value {
        case .map(let entries):
            return .object(["map": .object(members(entries))])
        case .table(let entries):
            return .object(["table": .object(members(entries))])
        case .list(let values):
            return .object(["list": .array(values.map(Self.value))])
        case .text(let text, let marks):
            var members: JSONObject = ["text": .string(text)]
            if !marks.isEmpty { members["marks"] = Self.marks(marks) }
            return .object(members)
        case .scalar(let primitive):
            return scalar(primitive)
        }
    }

    /// A map's or table's members, every key kept: keys that differ in
    /// their scalars are different keys, however alike they render.
    static func members(_ entries: [(key: String, value: SnapshotValue)]) -> JSONObject {
        JSONObject(entries.lazy.map { (key: $0.key, value: Self.value($0.value)) })
    }

    /// A text's marks, sorted by (name, start, end), names by their scalars.
    static func marks(_ marks: [SnapshotMark]) -> JSONValue {
        let sorted = marks.sorted { (ExactString($0.name), $0.start, $0.end) < (ExactString($1.name), $1.start, $1.end) }
        return .array(sorted.map { mark in
            .object([
                "name": .string(mark.name), "value": scalar(mark.value),
                "start": .number(String(mark.start)), "end": .number(String(mark.end)),
            ])
        })
    }

    static func scalar(_ value: Primitive) -> JSONValue {
        let (tag, payload) = scalarMember(value)
        return .object([tag: payload])
    }

    /// A scalar's dump form, `{tag: payload}`, as its two parts.
    static func scalarMember(_ value: Primitive) -> (tag: String, payload: JSONValue) {
        switch value {
        case .null: return ("null", .null)
        case .bool(let v): return ("bool", .bool(v))
        case .uint(let v): return ("uint", .number(String(v)))
        case .int(let v): return ("int", .number(String(v)))
        case .f64(let v):
            let hex = String(v.bitPattern, radix: 16)
            return ("f64", .string(String(repeating: "0", count: 16 - hex.count) + hex))
        case .string(let v): return ("str", .string(v))
        case .bytes(let v): return ("bytes", .string(hex(v)))
        case .counter(let v): return ("counter", .number(String(v)))
        case .timestamp(let v): return ("timestamp", .number(String(v)))
        case .unknown(let code, let bytes):
            return ("unknown", .object(["type": .number(String(code)), "bytes": .string(hex(bytes))]))
        }
    }

    static func hex(_ bytes: [UInt8]) -> String { Bytes.hex(bytes) }
}

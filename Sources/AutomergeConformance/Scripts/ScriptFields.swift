import Automerge
import Foundation

/// The members of one JSON object of a script, read with typed errors that
/// name the step and the field.
struct ScriptFields {
    let members: [ExactString: JSONValue]
    let step: Int?

    init(_ value: JSONValue, step: Int?, what: String) throws(EditScriptError) {
        guard case .object(let members) = value else { throw EditScriptError(step: step, "\(what) must be a JSON object") }
        self.members = members
        self.step = step
    }

    func fail(_ reason: String) -> EditScriptError { EditScriptError(step: step, reason) }

    func value(_ name: String) -> JSONValue? {
        guard let value = members[ExactString(name)], value != .null else { return nil }
        return value
    }

    func required(_ name: String) throws(EditScriptError) -> JSONValue {
        guard let value = members[ExactString(name)] else { throw fail("'\(name)' is missing") }
        return value
    }

    func string(_ name: String) throws(EditScriptError) -> String {
        guard case .string(let text) = try required(name) else { throw fail("'\(name)' must be a string") }
        return text
    }

    func optionalString(_ name: String) throws(EditScriptError) -> String? {
        guard value(name) != nil else { return nil }
        return try string(name)
    }

    func array(_ name: String) throws(EditScriptError) -> [JSONValue] {
        guard case .array(let items) = try required(name) else { throw fail("'\(name)' must be an array") }
        return items
    }

    func int64(_ name: String) throws(EditScriptError) -> Int64 {
        guard case .number(let literal) = try required(name), let value = Int64(literal) else {
            throw fail("'\(name)' must be an integer in the 64-bit signed range")
        }
        return value
    }

    func optionalInt64(_ name: String) throws(EditScriptError) -> Int64? {
        guard value(name) != nil else { return nil }
        return try int64(name)
    }

    func uint64(_ name: String) throws(EditScriptError) -> UInt64 {
        guard case .number(let literal) = try required(name), let value = UInt64(literal) else {
            throw fail("'\(name)' must be a non-negative integer")
        }
        return value
    }

    func actor(_ name: String) throws(EditScriptError) -> [UInt8] {
        let text = try string(name)
        guard let bytes = Bytes.fromHex(text[...]), ActorId(data: Data(bytes)) != nil else {
            throw fail("'\(name)' must be an actor id in hex, got '\(text.prefix(80))'")
        }
        return bytes
    }

    func hashes(_ name: String) throws(EditScriptError) -> [ChangeHash] {
        try array(name).map { value throws(EditScriptError) in
            guard case .string(let text) = value, let hash = ChangeHash(hexString: text) else {
                throw fail("'\(name)' must hold change hashes in hex")
            }
            return hash
        }
    }

    /// `obj`: the path from the root; absent means the root.
    func path() throws(EditScriptError) -> [EditScript.PathElement] {
        guard let value = value("obj") else { return [] }
        guard case .array(let items) = value else { throw fail("'obj' must be an array of keys and indices") }
        return try items.map { item throws(EditScriptError) in
            switch item {
            case .string(let key): return .key(key)
            case .number(let literal):
                guard let index = UInt64(literal) else { throw fail("'obj' holds an index that is not a non-negative integer") }
                return .index(index)
            default: throw fail("'obj' must be an array of keys (strings) and indices (integers)")
            }
        }
    }

    /// `key` for a map, `index` for a list: exactly one of them.
    func place() throws(EditScriptError) -> EditScript.Place {
        switch (value("key"), value("index")) {
        case (.some, nil): return .key(try string("key"))
        case (nil, .some): return .index(try uint64("index"))
        default: throw fail("give exactly one of 'key' and 'index'")
        }
    }

    func objectType() throws(EditScriptError) -> ObjType {
        switch try string("type") {
        case "map": return .Map
        case "list": return .List
        case "text": return .Text
        case let other: throw fail("'type' must be map, list or text, not '\(other)'")
        }
    }

    func expand() throws(EditScriptError) -> ExpandMark {
        switch try string("expand") {
        case "before": return .before
        case "after": return .after
        case "both": return .both
        case "none": return .none
        case let other: throw fail("'expand' must be before, after, both or none, not '\(other)'")
        }
    }

    func scalar(_ name: String) throws(EditScriptError) -> ScalarValue { try scalar(try required(name)) }

    func scalar(_ value: JSONValue) throws(EditScriptError) -> ScalarValue {
        guard let scalar = ScriptScalar.value(value) else {
            throw fail("\(value.serialized.prefix(80)) is not a scalar in the dump format ({\"str\": ...}, {\"int\": n}, ...)")
        }
        return scalar
    }
}

/// Scalars in the dump format's tagged form, both ways.
enum ScriptScalar {
    /// Timestamps travel through `Date`, exact to the millisecond within this range.
    static let timestampRange: ClosedRange<Int64> = -(1 << 50)...(1 << 50)

    static func value(_ json: JSONValue) -> ScalarValue? {
        guard case .object(let members) = json, members.count == 1, let (tag, payload) = members.first else { return nil }
        switch (tag, payload) {
        case ("str", .string(let text)): return .String(text)
        case ("int", .number(let literal)): return Int64(literal).map { .Int($0) }
        case ("uint", .number(let literal)): return UInt64(literal).map { .Uint($0) }
        case ("counter", .number(let literal)): return Int64(literal).map { .Counter($0) }
        case ("timestamp", .number(let literal)):
            guard let ms = Int64(literal), timestampRange.contains(ms) else { return nil }
            return .Timestamp(Date(timeIntervalSince1970: Double(ms) / 1000))
        case ("f64", .string(let hex)):
            guard hex.utf8.count == 16, let bits = UInt64(hex, radix: 16) else { return nil }
            return .F64(Double(bitPattern: bits))
        case ("bool", .bool(let flag)): return .Boolean(flag)
        case ("null", .null): return .Null
        case ("bytes", .string(let hex)): return Bytes.fromHex(hex[...]).map { .Bytes(Data($0)) }
        default: return nil
        }
    }

    static func json(_ value: ScalarValue) -> JSONValue {
        switch value {
        case .String(let text): return .object(["str": .string(text)])
        case .Int(let n): return .object(["int": .number(String(n))])
        case .Uint(let n): return .object(["uint": .number(String(n))])
        case .Counter(let n): return .object(["counter": .number(String(n))])
        case .Timestamp(let date): return .object(["timestamp": .number(String(Int64((date.timeIntervalSince1970 * 1000).rounded())))])
        case .F64(let d): return .object(["f64": .string(String(format: "%016llx", d.bitPattern))])
        case .Boolean(let flag): return .object(["bool": .bool(flag)])
        case .Null: return .object(["null": .null])
        case .Bytes(let data): return .object(["bytes": .string(Bytes.hex([UInt8](data)))])
        case .Unknown(let typeCode, let data):
            return .object(["unknown": .object(["type": .number(String(typeCode)), "bytes": .string(Bytes.hex([UInt8](data)))])])
        }
    }

    static func name(of type: ObjType) -> String {
        switch type {
        case .Map: "map"
        case .List: "list"
        case .Text: "text"
        }
    }

    static func name(of expand: ExpandMark) -> String {
        switch expand {
        case .before: "before"
        case .after: "after"
        case .both: "both"
        case .none: "none"
        }
    }
}

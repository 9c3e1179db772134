import Automerge
import Foundation

/// The JSON view of an Automerge document's objects (see ``BodyValue``):
/// each key's winning value, text as a string, counters, unsigned integers
/// and timestamps as integers, bytes as base64.
enum BodyReader {
    /// The JSON view of one value.
    static func read(_ value: Value, in document: Document) throws -> BodyValue {
        switch value {
        case .Scalar(let scalar):
            return view(of: scalar)
        case .Object(let id, .Text):
            return .string(try document.text(obj: id))
        case .Object(let id, .List):
            return .list(try document.values(obj: id).map { try read($0, in: document) })
        case .Object(let id, .Map):
            var entries: [ExactString: BodyValue] = [:]
            for (key, value) in try document.mapEntries(obj: id) { entries[ExactString(key)] = try read(value, in: document) }
            return .map(entries)
        }
    }

    static func view(of scalar: ScalarValue) -> BodyValue {
        switch scalar {
        case .Null: return .null
        case .Boolean(let value): return .bool(value)
        case .Int(let value), .Counter(let value): return .int(value)
        case .Uint(let value): return value <= UInt64(Int64.max) ? .int(Int64(value)) : .double(Double(value))
        case .F64(let value): return .double(value)
        case .String(let value): return .string(value)
        case .Timestamp(let date): return .int(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        case .Bytes(let data): return .string(data.base64EncodedString())
        case .Unknown(_, let data): return .string(data.base64EncodedString())
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A primitive value stored in an Automerge document.
///
/// Matches automerge-swift's `ScalarValue`. Timestamps are exposed as `Date`;
/// the document keeps their exact millisecond count internally, so a value read
/// from a document and never rewritten keeps its exact bytes on save.
public enum ScalarValue: Equatable, Hashable, Sendable {
    /// A byte buffer.
    case Bytes(Data)
    /// A UTF-8 string.
    case String(String)
    /// An unsigned 64-bit integer.
    case Uint(UInt64)
    /// A signed 64-bit integer.
    case Int(Int64)
    /// A 64-bit IEEE-754 floating point number.
    case F64(Double)
    /// A counter: concurrent increments from different peers add up.
    case Counter(Int64)
    /// A point in time, stored as milliseconds since the Unix epoch.
    case Timestamp(Date)
    /// A boolean.
    case Boolean(Bool)
    /// A value whose type code (10...15 in the file format) this version does not know;
    /// it is kept verbatim so that it survives a load and save.
    case Unknown(typeCode: UInt8, data: Data)
    /// Null.
    case Null
}

extension ScalarValue: CustomStringConvertible {
    /// A short description of the value, for logs.
    public var description: Swift.String {
        switch self {
        case .Bytes(let data): return "Bytes(\(data.count) bytes)"
        case .String(let string): return "\"\(string)\""
        case .Uint(let value): return "Uint(\(value))"
        case .Int(let value): return "Int(\(value))"
        case .F64(let value): return "F64(\(value))"
        case .Counter(let value): return "Counter(\(value))"
        case .Timestamp(let date): return "Timestamp(\(date))"
        case .Boolean(let value): return "Boolean(\(value))"
        case .Unknown(let code, let data): return "Unknown(type \(code), \(data.count) bytes)"
        case .Null: return "Null"
        }
    }
}

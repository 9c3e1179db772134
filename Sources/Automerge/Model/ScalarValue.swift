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
    /// The value as automerge-swift describes it (`String(hello)`,
    /// `UInt(3)`, `Data(00ff)`, `Null()`, ...), which `walk()` prints.
    ///
    /// Bytes show in hex, only the first 15 bytes of a buffer over 16 bytes
    /// long (automerge-swift's cut-off, kept so the text matches). Doubles
    /// print in full on every platform (automerge-swift rounds them to two
    /// significant digits on Apple platforms only).
    public var description: Swift.String {
        switch self {
        case .Boolean(let value): return "Boolean(\(value))"
        case .Bytes(let data): return "Data(\(Hex.encode(data.count > 16 ? data.prefix(15) : data)))"
        case .String(let string): return "String(\(string))"
        case .Uint(let value): return "UInt(\(value))"
        case .Int(let value): return "Int(\(value))"
        case .F64(let value): return "Double(\(value))"
        case .Counter(let value): return "Counter(\(value))"
        case .Timestamp(let date): return "Timestamp(\(date))"
        case .Unknown(let code, let data): return "Unknown(type: \(code), data: \(Hex.encode(data)))"
        case .Null: return "Null()"
        }
    }
}

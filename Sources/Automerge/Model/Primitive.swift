#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The exact form of a primitive value inside the document.
///
/// Unlike the public ``ScalarValue`` it keeps timestamps as integer
/// milliseconds and floats by bit pattern, so every value survives a
/// load/save round trip byte for byte.
@_spi(Conformance)
public enum Primitive: Hashable, Sendable {
    case null
    case bool(Bool)
    case uint(UInt64)
    case int(Int64)
    case f64(Double)
    case string(String)
    case bytes([UInt8])
    case counter(Int64)
    /// Milliseconds since the Unix epoch.
    case timestamp(Int64)
    /// A value with an unknown type code (10...15), kept verbatim.
    case unknown(typeCode: UInt8, bytes: [UInt8])

    /// Bitwise equality: floats compare by bit pattern (NaN equals itself) and
    /// strings by their UTF-8 bytes (Swift's `==` would equate canonically
    /// equivalent strings, which Automerge keeps apart).
    public static func == (lhs: Primitive, rhs: Primitive) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.uint(a), .uint(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.f64(a), .f64(b)): return a.bitPattern == b.bitPattern
        case let (.string(a), .string(b)): return a.utf8.elementsEqual(b.utf8)
        case let (.bytes(a), .bytes(b)): return a == b
        case let (.counter(a), .counter(b)): return a == b
        case let (.timestamp(a), .timestamp(b)): return a == b
        case let (.unknown(c1, b1), .unknown(c2, b2)): return c1 == c2 && b1 == b2
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let v): hasher.combine(1); hasher.combine(v)
        case .uint(let v): hasher.combine(2); hasher.combine(v)
        case .int(let v): hasher.combine(3); hasher.combine(v)
        case .f64(let v): hasher.combine(4); hasher.combine(v.bitPattern)
        case .string(let v): hasher.combine(5); for byte in v.utf8 { hasher.combine(byte) }
        case .bytes(let v): hasher.combine(6); hasher.combine(v)
        case .counter(let v): hasher.combine(7); hasher.combine(v)
        case .timestamp(let v): hasher.combine(8); hasher.combine(v)
        case .unknown(let c, let b): hasher.combine(9); hasher.combine(c); hasher.combine(b)
        }
    }

    /// Equality as Rust's `ScalarValue: PartialEq` defines it (IEEE comparison
    /// for floats: NaN differs from itself, -0.0 equals 0.0). Used where Rust
    /// decides whether a put changes anything.
    func rustEquals(_ other: Primitive) -> Bool {
        if case let .f64(a) = self, case let .f64(b) = other { return a == b }
        return self == other
    }
}

extension Primitive {
    /// Creates the exact form of a public value.
    init(_ value: ScalarValue) {
        switch value {
        case .Bytes(let data): self = .bytes([UInt8](data))
        case .String(let string): self = .string(string)
        case .Uint(let v): self = .uint(v)
        case .Int(let v): self = .int(v)
        case .F64(let v): self = .f64(v)
        case .Counter(let v): self = .counter(v)
        case .Timestamp(let date): self = .timestamp(Primitive.milliseconds(of: date))
        case .Boolean(let v): self = .bool(v)
        case .Unknown(let code, let data): self = .unknown(typeCode: code, bytes: [UInt8](data))
        case .Null: self = .null
        }
    }

    /// The public form of this value.
    public var publicValue: ScalarValue {
        switch self {
        case .null: return .Null
        case .bool(let v): return .Boolean(v)
        case .uint(let v): return .Uint(v)
        case .int(let v): return .Int(v)
        case .f64(let v): return .F64(v)
        case .string(let v): return .String(v)
        case .bytes(let v): return .Bytes(Data(v))
        case .counter(let v): return .Counter(v)
        case .timestamp(let ms): return .Timestamp(Date(timeIntervalSince1970: Double(ms) / 1000))
        case .unknown(let code, let bytes): return .Unknown(typeCode: code, data: Data(bytes))
        }
    }

    /// Milliseconds since the epoch, rounded to the nearest millisecond and
    /// clamped to the Int64 range (a `Date` can hold values no Int64 can).
    static func milliseconds(of date: Date) -> Int64 {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        if ms.isNaN { return 0 }
        if ms >= 9.223372036854775807e18 { return Int64.max }
        if ms <= -9.223372036854775808e18 { return Int64.min }
        return Int64(ms)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads an integer of any width from a scalar: signed, unsigned and counter
/// scalars, and floats holding an exact whole number (as JavaScript peers write
/// them). Values the type can't hold fail with ``IntScalarConversionError/outOfRange(_:type:)``.
func scalarInteger<T: FixedWidthInteger>(_ type: T.Type, from val: ScalarValue) -> Result<T, IntScalarConversionError> {
    let converted: T?
    switch val {
    case .Int(let value), .Counter(let value): converted = T(exactly: value)
    case .Uint(let value): converted = T(exactly: value)
    case .F64(let value):
        guard value.isFinite, value.rounded(.towardZero) == value else { return .failure(.notIntScalarValue(val)) }
        converted = T(exactly: value)
    default: return .failure(.notIntScalarValue(val))
    }
    guard let converted else { return .failure(.outOfRange(val, type: "\(T.self)")) }
    return .success(converted)
}

extension Int: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `Int`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Int, IntScalarConversionError> { scalarInteger(Int.self, from: val) }
    /// A signed integer scalar.
    public func toScalarValue() -> ScalarValue { .Int(Int64(self)) }
}

extension Int8: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `Int8`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Int8, IntScalarConversionError> { scalarInteger(Int8.self, from: val) }
    /// A signed integer scalar.
    public func toScalarValue() -> ScalarValue { .Int(Int64(self)) }
}

extension Int16: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `Int16`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Int16, IntScalarConversionError> { scalarInteger(Int16.self, from: val) }
    /// A signed integer scalar.
    public func toScalarValue() -> ScalarValue { .Int(Int64(self)) }
}

extension Int32: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `Int32`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Int32, IntScalarConversionError> { scalarInteger(Int32.self, from: val) }
    /// A signed integer scalar.
    public func toScalarValue() -> ScalarValue { .Int(Int64(self)) }
}

extension Int64: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `Int64`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Int64, IntScalarConversionError> { scalarInteger(Int64.self, from: val) }
    /// A signed integer scalar.
    public func toScalarValue() -> ScalarValue { .Int(self) }
}

extension UInt: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `UInt`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<UInt, IntScalarConversionError> { scalarInteger(UInt.self, from: val) }
    /// An unsigned integer scalar.
    public func toScalarValue() -> ScalarValue { .Uint(UInt64(self)) }
}

extension UInt8: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `UInt8`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<UInt8, IntScalarConversionError> { scalarInteger(UInt8.self, from: val) }
    /// An unsigned integer scalar.
    public func toScalarValue() -> ScalarValue { .Uint(UInt64(self)) }
}

extension UInt16: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `UInt16`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<UInt16, IntScalarConversionError> { scalarInteger(UInt16.self, from: val) }
    /// An unsigned integer scalar.
    public func toScalarValue() -> ScalarValue { .Uint(UInt64(self)) }
}

extension UInt32: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `UInt32`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<UInt32, IntScalarConversionError> { scalarInteger(UInt32.self, from: val) }
    /// An unsigned integer scalar.
    public func toScalarValue() -> ScalarValue { .Uint(UInt64(self)) }
}

extension UInt64: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `UInt64`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<UInt64, IntScalarConversionError> { scalarInteger(UInt64.self, from: val) }
    /// An unsigned integer scalar.
    public func toScalarValue() -> ScalarValue { .Uint(self) }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads an integer of any width from a scalar: signed, unsigned and counter
/// scalars, and floats holding an exact whole number (as JavaScript peers write
/// them). Values the type can't hold fail too.
func exactInteger<T: FixedWidthInteger>(_ type: T.Type, from val: ScalarValue) -> T? {
    let converted: T?
    switch val {
    case .Int(let value), .Counter(let value): converted = T(exactly: value)
    case .Uint(let value): converted = T(exactly: value)
    case .F64(let value):
        guard value.isFinite, value.rounded(.towardZero) == value else { return nil }
        converted = T(exactly: value)
    default: return nil
    }
    return converted
}

/// ``exactInteger(_:from:)`` as the conversion of every integer type but `UInt`.
func scalarInteger<T: FixedWidthInteger>(_ val: ScalarValue) -> Result<T, IntScalarConversionError> {
    guard let value = exactInteger(T.self, from: val) else { return .failure(.notIntScalarValue(val)) }
    return .success(value)
}

extension Int: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `Int`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Int, IntScalarConversionError> { scalarInteger(val) }
    /// A signed integer scalar.
    public func toScalarValue() -> ScalarValue { .Int(Int64(self)) }
}

extension Int8: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `Int8`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Int8, IntScalarConversionError> { scalarInteger(val) }
    /// A signed integer scalar.
    public func toScalarValue() -> ScalarValue { .Int(Int64(self)) }
}

extension Int16: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `Int16`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Int16, IntScalarConversionError> { scalarInteger(val) }
    /// A signed integer scalar.
    public func toScalarValue() -> ScalarValue { .Int(Int64(self)) }
}

extension Int32: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `Int32`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Int32, IntScalarConversionError> { scalarInteger(val) }
    /// A signed integer scalar.
    public func toScalarValue() -> ScalarValue { .Int(Int64(self)) }
}

extension Int64: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `Int64`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Int64, IntScalarConversionError> { scalarInteger(val) }
    /// A signed integer scalar.
    public func toScalarValue() -> ScalarValue { .Int(self) }
}

extension UInt: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `UInt`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<UInt, UIntScalarConversionError> {
        guard let value = exactInteger(UInt.self, from: val) else { return .failure(.notUIntScalarValue(val)) }
        return .success(value)
    }
    /// An unsigned integer scalar.
    public func toScalarValue() -> ScalarValue { .Uint(UInt64(self)) }
}

extension UInt8: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `UInt8`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<UInt8, IntScalarConversionError> { scalarInteger(val) }
    /// An unsigned integer scalar.
    public func toScalarValue() -> ScalarValue { .Uint(UInt64(self)) }
}

extension UInt16: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `UInt16`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<UInt16, IntScalarConversionError> { scalarInteger(val) }
    /// An unsigned integer scalar.
    public func toScalarValue() -> ScalarValue { .Uint(UInt64(self)) }
}

extension UInt32: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `UInt32`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<UInt32, IntScalarConversionError> { scalarInteger(val) }
    /// An unsigned integer scalar.
    public func toScalarValue() -> ScalarValue { .Uint(UInt64(self)) }
}

extension UInt64: ScalarValueRepresentable {
    /// Reads an integer scalar that fits in `UInt64`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<UInt64, IntScalarConversionError> { scalarInteger(val) }
    /// An unsigned integer scalar.
    public func toScalarValue() -> ScalarValue { .Uint(self) }
}

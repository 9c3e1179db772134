#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Bool: ScalarValueRepresentable {
    /// Reads a boolean scalar.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Bool, BooleanScalarConversionError> {
        if case .Boolean(let value) = val { return .success(value) }
        return .failure(.notboolScalarValue(val))
    }

    /// A boolean scalar.
    public func toScalarValue() -> ScalarValue { .Boolean(self) }
}

extension String: ScalarValueRepresentable {
    /// Reads a string scalar.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<String, StringScalarConversionError> {
        if case .String(let value) = val { return .success(value) }
        return .failure(.notstringScalarValue(val))
    }

    /// A string scalar.
    public func toScalarValue() -> ScalarValue { .String(self) }
}

extension Data: ScalarValueRepresentable {
    /// Reads a bytes scalar.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Data, BytesScalarConversionError> {
        if case .Bytes(let value) = val { return .success(value) }
        return .failure(.notbytesScalarValue(val))
    }

    /// A bytes scalar.
    public func toScalarValue() -> ScalarValue { .Bytes(self) }
}

extension Date: ScalarValueRepresentable {
    /// Reads a timestamp scalar (millisecond precision).
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Date, TimestampScalarConversionError> {
        if case .Timestamp(let value) = val { return .success(value) }
        return .failure(.notTimetampScalarValue(val))
    }

    /// A timestamp scalar. Documents store whole milliseconds since 1970, so
    /// the date is rounded to the nearest millisecond.
    public func toScalarValue() -> ScalarValue { .Timestamp(self) }
}

extension URL: ScalarValueRepresentable {
    /// Reads a string scalar holding a URL.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<URL, URLScalarConversionError> {
        guard case .String(let string) = val else { return .failure(.notStringScalarValue(val)) }
        guard let url = URL(string: string) else { return .failure(.notMatchingURLScheme(string)) }
        return .success(url)
    }

    /// The URL's absolute string as a string scalar.
    public func toScalarValue() -> ScalarValue { .String(absoluteString) }
}

extension Double: ScalarValueRepresentable {
    /// Reads a float scalar; integer scalars are accepted too (JavaScript peers store whole numbers as integers).
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Double, FloatingPointScalarConversionError> {
        switch val {
        case .F64(let value): return .success(value)
        case .Int(let value): return .success(Double(value))
        case .Uint(let value): return .success(Double(value))
        default: return .failure(.notF64ScalarValue(val))
        }
    }

    /// A float scalar.
    public func toScalarValue() -> ScalarValue { .F64(self) }
}

extension Float: ScalarValueRepresentable {
    /// Reads a float scalar (or an integer scalar) and narrows it to `Float`.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Float, FloatingPointScalarConversionError> {
        Double.fromScalarValue(val).map { Float($0) }
    }

    /// A float scalar holding the exact value of this `Float`.
    public func toScalarValue() -> ScalarValue { .F64(Double(self)) }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A type stored as a single Automerge scalar (a ``ScalarValue``) rather than
/// as an object.
///
/// The standard library and Foundation types Automerge has a primitive for
/// conform already: `Bool`, `String`, every integer type, `Double`, `Float`,
/// `Data`, `Date` (a millisecond timestamp), `URL` (its absolute string) and
/// ``Counter``. ``AutomergeEncoder`` and ``AutomergeDecoder`` use the
/// conformance of any `Codable` type that adopts this protocol, so conform
/// your own small types to store them as one scalar.
public protocol ScalarValueRepresentable {
    /// The error a failed conversion from a scalar reports.
    associatedtype ConvertError: LocalizedError

    /// Converts a scalar from a document, or says why it can't.
    static func fromScalarValue(_ val: ScalarValue) -> Result<Self, ConvertError>

    /// The scalar that represents this value in a document.
    func toScalarValue() -> ScalarValue
}

/// A scalar could not be read as a `Bool`.
public enum BooleanScalarConversionError: LocalizedError {
    /// The scalar is not a boolean.
    case notboolScalarValue(_ val: ScalarValue)

    /// What went wrong.
    public var errorDescription: String? {
        switch self {
        case .notboolScalarValue(let val): return "Failed to read the scalar value \(val) as a Boolean."
        }
    }
}

/// A scalar could not be read as a `String`.
public enum StringScalarConversionError: LocalizedError {
    /// The scalar is not a string.
    case notstringScalarValue(_ val: ScalarValue)

    /// What went wrong.
    public var errorDescription: String? {
        switch self {
        case .notstringScalarValue(let val): return "Failed to read the scalar value \(val) as a String."
        }
    }
}

/// A scalar could not be read as `Data`.
public enum BytesScalarConversionError: LocalizedError {
    /// The scalar is not a byte buffer.
    case notbytesScalarValue(_ val: ScalarValue)

    /// What went wrong.
    public var errorDescription: String? {
        switch self {
        case .notbytesScalarValue(let val): return "Failed to read the scalar value \(val) as bytes."
        }
    }
}

/// A scalar could not be read as a `URL`.
public enum URLScalarConversionError: LocalizedError {
    /// The scalar is not a string.
    case notStringScalarValue(_ val: ScalarValue)
    /// The string does not parse as a URL.
    case notMatchingURLScheme(String)

    /// What went wrong.
    public var errorDescription: String? {
        switch self {
        case .notStringScalarValue(let val): return "Failed to read the scalar value \(val) as a String before converting to URL."
        case .notMatchingURLScheme(let string): return "Failed to convert the string \(string) to URL."
        }
    }
}

/// A scalar could not be read as a `Date`.
public enum TimestampScalarConversionError: LocalizedError {
    /// The scalar is not a timestamp.
    case notTimetampScalarValue(_ val: ScalarValue)

    /// What went wrong.
    public var errorDescription: String? {
        switch self {
        case .notTimetampScalarValue(let val): return "Failed to read the scalar value \(val) as a timestamp value."
        }
    }
}

/// A scalar could not be read as a `Double` or `Float`.
public enum FloatingPointScalarConversionError: LocalizedError {
    /// The scalar is not a number.
    case notF64ScalarValue(_ val: ScalarValue)

    /// What went wrong.
    public var errorDescription: String? {
        switch self {
        case .notF64ScalarValue(let val): return "Failed to read the scalar value \(val) as a 64-bit floating-point value."
        }
    }
}

/// A scalar could not be read as an integer type (every fixed-width one but `UInt`).
public enum IntScalarConversionError: LocalizedError {
    /// The scalar is not an integer, or one the destination type can't hold.
    case notIntScalarValue(_ val: ScalarValue)

    /// What went wrong.
    public var errorDescription: String? {
        switch self {
        case .notIntScalarValue(let val):
            if exactInteger(Int64.self, from: val) != nil || exactInteger(UInt64.self, from: val) != nil {
                return "The scalar value \(val) is an integer outside the range of the requested type."
            }
            return "Failed to read the scalar value \(val) as an integer."
        }
    }
}

/// A scalar could not be read as `UInt`.
public enum UIntScalarConversionError: LocalizedError {
    /// The scalar is not an unsigned integer.
    case notUIntScalarValue(_ val: ScalarValue)

    /// What went wrong.
    public var errorDescription: String? {
        switch self {
        case .notUIntScalarValue(let val): return "Failed to read the scalar value \(val) as an unsigned integer."
        }
    }
}

/// A scalar could not be read as a ``Counter``.
public enum CounterScalarConversionError: LocalizedError {
    /// The scalar is not a counter.
    case notCounterScalarValue(_ val: ScalarValue)

    /// What went wrong.
    public var errorDescription: String? {
        switch self {
        case .notCounterScalarValue(let val): return "Failed to read the scalar value \(val) as a counter."
        }
    }
}

extension ScalarValue: ScalarValueRepresentable {
    /// The value itself.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<ScalarValue, ScalarValueConversionError> { .success(val) }
    /// The value itself.
    public func toScalarValue() -> ScalarValue { self }
}

/// The conversion error of ``ScalarValue`` itself, which cannot fail (an enum without cases).
public enum ScalarValueConversionError: LocalizedError {}

import Foundation
@_exported import struct StrictJSON.ExactString

/// A JSON-like value: the body of a document revision and everything in it.
///
/// Written with Swift literals, as Cloudant Sync's bodies are written with
/// dictionary literals:
///
/// ```swift
/// rev.body = ["description": "Buy milk", "completed": false, "tags": ["home"]]
/// rev.body["completed"] = true
/// ```
///
/// Stored in the document's Automerge root map: maps and lists become
/// Automerge maps and lists, the rest scalars. Reading a document that
/// holds richer Automerge values gives their JSON view: text as
/// ``string(_:)``, counters and unsigned integers as ``int(_:)``,
/// timestamps as ``int(_:)`` milliseconds, bytes as a base64 ``string(_:)``.
/// Writing that view back changes nothing (fields equal to what is stored
/// make no ops), so the richer values stay as they are.
///
/// Strings and map keys are data, told apart by their Unicode scalars as
/// JSON, Automerge and CouchDB tell them: a map's keys are `ExactString`
/// values (StrictJSON's), so that "é" (U+00E9) and "e\u{301}" are two keys,
/// and two strings are equal only when their scalars are (see ``==(_:_:)``).
public enum BodyValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case list([BodyValue])
    case map([ExactString: BodyValue])

    /// The value at `key` of a map (nil for a missing key or a non-map).
    /// Setting turns a non-map into a map; setting nil removes the key.
    public subscript(key: String) -> BodyValue? {
        get {
            guard case .map(let entries) = self else { return nil }
            return entries[ExactString(key)]
        }
        set {
            var entries: [ExactString: BodyValue] = [:]
            if case .map(let existing) = self { entries = existing }
            entries[ExactString(key)] = newValue
            self = .map(entries)
        }
    }

    /// The element at `index` of a list (nil out of range or for a non-list).
    public subscript(index: Int) -> BodyValue? {
        guard case .list(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The entries of a map, nil for other values.
    public var mapValue: [ExactString: BodyValue]? {
        if case .map(let entries) = self { return entries }
        return nil
    }

    /// The elements of a list, nil for other values.
    public var listValue: [BodyValue]? {
        if case .list(let elements) = self { return elements }
        return nil
    }

    /// The string, nil for other values.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The integer, nil for other values.
    public var intValue: Int64? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The number as a double (integers included), nil for other values.
    public var doubleValue: Double? {
        switch self {
        case .double(let value): return value
        case .int(let value): return Double(value)
        default: return nil
        }
    }

    /// The Boolean, nil for other values.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// Whether this is ``null``.
    public var isNull: Bool { self == .null }
}

extension BodyValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: BodyValue...) { self = .list(elements) }

    /// A map; a key written twice (the same scalars) keeps its last value.
    public init(dictionaryLiteral elements: (ExactString, BodyValue)...) {
        self = .map(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension BodyValue: CustomStringConvertible {
    /// The value as compact JSON with sorted keys.
    public var description: String { String(decoding: (try? BodyJSON.encode(self)) ?? Data(), as: UTF8.self) }
}

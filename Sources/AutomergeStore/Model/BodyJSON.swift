import Automerge
import Foundation

extension BodyValue: Codable {
    /// Decodes any JSON value: numbers without a fraction or exponent that
    /// fit 64 bits as ``int(_:)``, other numbers as ``double(_:)``; a map
    /// with every key the decoder reports (Foundation's JSON coders keep
    /// one of two keys Swift takes for equal, such as "é" and "e\u{301}":
    /// ``BodyJSON`` keeps both).
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([BodyValue].self) {
            self = .list(value)
        } else {
            let map = try decoder.container(keyedBy: AnyCodingKey.self)
            var entries: [ExactString: BodyValue] = [:]
            for key in map.allKeys { entries[ExactString(key.stringValue)] = try map.decode(BodyValue.self, forKey: key) }
            self = .map(entries)
        }
    }

    public func encode(to encoder: Encoder) throws {
        if case .map(let entries) = self {
            var map = encoder.container(keyedBy: AnyCodingKey.self)
            for (key, value) in entries { try map.encode(value, forKey: AnyCodingKey(key.string)) }
            return
        }
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .list(let value): try container.encode(value)
        case .map: break
        }
    }
}

/// Bodies as JSON text (`JSONText`: exact about integers and doubles),
/// for the command line, the stored views and tests.
public enum BodyJSON {
    /// Compact JSON with sorted keys; doubles always have a fraction or exponent.
    /// - Throws: ``StoreError/invalidBody(_:)`` for a non-finite double.
    public static func encode(_ value: BodyValue) throws -> Data {
        guard value.isFinite else { throw StoreError.invalidBody("numbers must be finite") }
        return Data(JSONText.write(value))
    }

    /// A value from JSON text.
    /// - Throws: ``StoreError/invalidBody(_:)`` naming what is wrong.
    public static func decode(_ data: Data) throws -> BodyValue {
        do throws(JSONText.SyntaxError) {
            return try JSONText.read(data)
        } catch {
            throw StoreError.invalidBody("not JSON: \(error)")
        }
    }
}

extension BodyValue {
    /// Whether every number in it is finite.
    var isFinite: Bool { problem(maximumDepth: .max) == nil }

    /// What keeps it from being stored, if anything: a non-finite number,
    /// or nesting deeper than `maximumDepth` levels below it. Walked
    /// without recursion, so that a value of any depth is refused, not
    /// overflowing the stack.
    func problem(maximumDepth: Int) -> String? {
        var pending: [(value: BodyValue, depth: Int)] = [(self, 0)]
        while let (value, depth) = pending.popLast() {
            switch value {
            case .double(let number) where !number.isFinite:
                return "numbers must be finite, not \(number)"
            case .list(let elements):
                guard depth < maximumDepth || elements.isEmpty else { return "nested deeper than \(maximumDepth) levels" }
                pending.append(contentsOf: elements.lazy.map { ($0, depth + 1) })
            case .map(let entries):
                guard depth < maximumDepth || entries.isEmpty else { return "nested deeper than \(maximumDepth) levels" }
                pending.append(contentsOf: entries.values.lazy.map { ($0, depth + 1) })
            default:
                break
            }
        }
        return nil
    }
}

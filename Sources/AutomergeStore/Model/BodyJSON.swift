import Foundation

extension BodyValue: Codable {
    /// Decodes any JSON value: numbers without a fraction or exponent that
    /// fit 64 bits as ``int(_:)``, other numbers as ``double(_:)``.
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
            self = .map(try container.decode([String: BodyValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .list(let value): try container.encode(value)
        case .map(let value): try container.encode(value)
        }
    }
}

/// Bodies as JSON text, for the command line and for tests.
public enum BodyJSON {
    /// Compact JSON with sorted keys.
    /// - Throws: ``StoreError/invalidBody(_:)`` for a non-finite double.
    public static func encode(_ value: BodyValue) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw StoreError.invalidBody("not representable as JSON: \(error)")
        }
    }

    /// A value from JSON text.
    /// - Throws: ``StoreError/invalidBody(_:)`` naming what is wrong.
    public static func decode(_ data: Data) throws -> BodyValue {
        do {
            return try JSONDecoder().decode(BodyValue.self, from: data)
        } catch let error as DecodingError {
            throw StoreError.invalidBody("not JSON: \(describe(error))")
        } catch {
            throw StoreError.invalidBody("not JSON: \(error)")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
            .keyNotFound(_, let context):
            return context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }
}

/// The text-keyed entries of one CBOR map of a message, read field by field
/// with the typed errors of ``RepoMessageError``.
///
/// A field that is absent, `null` or `undefined` counts as absent: cbor-x
/// writes a JavaScript property set to `undefined` as CBOR `undefined`
/// (automerge-repo sends `storageId: undefined` and `remove: undefined`).
/// Entries whose key is not a text string, and keys no reader asks for, are
/// ignored, as automerge-repo and samod ignore properties they do not use.
struct MessageFields {
    private let entries: [String: CBORValue]
    /// The path of this map inside the message, "" for the message itself.
    private let path: String

    /// The fields of `value`, which must be a map; `path` names it in errors.
    init(_ value: CBORValue, path: String = "") throws(RepoMessageError) {
        guard case .map(let pairs) = value else {
            if path.isEmpty { throw .notAMap(found: value.kind) }
            throw .wrongType(field: path, expected: .map, found: value.kind)
        }
        var entries: [String: CBORValue] = [:]
        for pair in pairs {
            // The CBOR decoder refuses duplicate keys, so no entry is overwritten.
            if case .textString(let key) = pair.key { entries[key] = pair.value }
        }
        self.entries = entries
        self.path = path
    }

    /// The name of field `key` in errors: its path from the message.
    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Field `key`'s value; `nil` when it is absent, `null` or `undefined`.
    func optional(_ key: String) -> CBORValue? {
        switch entries[key] {
        case nil, .null?, .undefined?: return nil
        case let value?: return value
        }
    }

    /// Field `key`'s value, which must be present.
    func required(_ key: String) throws(RepoMessageError) -> CBORValue {
        guard let value = optional(key) else { throw .missingField(name(key)) }
        return value
    }

    /// Field `key` as `extract` reads it; `nil` when absent, `null` or
    /// `undefined`; wrongType(`expected`) when `extract` finds another kind.
    func optional<T>(_ key: String, as expected: RepoMessageError.ValueKind,
                     _ extract: (CBORValue) -> T?) throws(RepoMessageError) -> T? {
        guard let value = optional(key) else { return nil }
        guard let result = extract(value) else {
            throw .wrongType(field: name(key), expected: expected, found: value.kind)
        }
        return result
    }

    /// Field `key` as `extract` reads it, which must be present.
    func required<T>(_ key: String, as expected: RepoMessageError.ValueKind,
                     _ extract: (CBORValue) -> T?) throws(RepoMessageError) -> T {
        guard let result = try optional(key, as: expected, extract) else { throw .missingField(name(key)) }
        return result
    }

    func text(_ key: String) throws(RepoMessageError) -> String {
        try required(key, as: .textString, \.textValue)
    }

    func optionalText(_ key: String) throws(RepoMessageError) -> String? {
        try optional(key, as: .textString, \.textValue)
    }

    func peerId(_ key: String) throws(RepoMessageError) -> PeerId {
        PeerId(try text(key))
    }

    func optionalPeerId(_ key: String) throws(RepoMessageError) -> PeerId? {
        try optionalText(key).map { PeerId($0) }
    }

    /// A byte string, or one under tag 64 (RFC 8746's `uint8` typed array):
    /// cbor-x writes a `Uint8Array` with that tag unless told not to, as
    /// automerge-repo tells it; a peer built on cbor-x's defaults still syncs.
    func bytes(_ key: String) throws(RepoMessageError) -> [UInt8] {
        try required(key, as: .byteString) { value in
            if case .tagged(64, let inner) = value { return inner.bytesValue }
            return value.bytesValue
        }
    }

    func optionalBool(_ key: String) throws(RepoMessageError) -> Bool? {
        try optional(key, as: .boolean) { value in
            if case .bool(let flag) = value { return flag }
            return nil
        }
    }

    /// A whole number: an unsigned integer, or a float holding a whole
    /// non-negative value (cbor-x may write a JavaScript number as a float64,
    /// as samod notes for `count` and `timestamp`).
    func unsigned(_ key: String) throws(RepoMessageError) -> UInt64 {
        try required(key, as: .unsignedInteger) { value in
            switch value {
            case .unsigned(let number): return number
            case .float(let number): return UInt64(exactly: number)
            default: return nil
            }
        }
    }

    /// A document id: its base58check string, as automerge-repo writes it, or
    /// its 16 bytes as a byte string, which samod also reads.
    func documentId(_ key: String) throws(RepoMessageError) -> DocumentId {
        let value = try required(key)
        switch value {
        case .textString(let text):
            do { return try DocumentId(text) } catch { throw .invalidDocumentId(field: name(key), error) }
        case .byteString(let bytes):
            do { return try DocumentId(bytes: bytes) } catch { throw .invalidDocumentId(field: name(key), error) }
        default:
            throw .wrongType(field: name(key), expected: .textString, found: value.kind)
        }
    }

    func textArray(_ key: String) throws(RepoMessageError) -> [String] {
        guard let array = try optionalTextArray(key) else { throw .missingField(name(key)) }
        return array
    }

    func optionalTextArray(_ key: String) throws(RepoMessageError) -> [String]? {
        guard let items = try optional(key, as: .array, { value -> [CBORValue]? in
            if case .array(let items) = value { return items }
            return nil
        }) else { return nil }
        var texts: [String] = []
        texts.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            // The item's name (its path, as long as a storage id in `newHeads`) is made only for an error:
            // made for every item, it cost the path's length per item, quadratic in the message.
            guard case .textString(let text) = item else {
                throw .wrongType(field: "\(name(key))[\(index)]", expected: .textString, found: item.kind)
            }
            texts.append(text)
        }
        return texts
    }

    /// The entries of the map in field `key`, which must be present.
    func map(_ key: String) throws(RepoMessageError) -> [CBORValue.MapEntry] {
        try required(key, as: .map) { value in
            if case .map(let pairs) = value { return pairs }
            return nil
        }
    }

    /// The fields of the map in field `key`; `nil` when it is absent, `null` or `undefined`.
    func optionalFields(_ key: String) throws(RepoMessageError) -> MessageFields? {
        guard let value = optional(key) else { return nil }
        return try MessageFields(value, path: name(key))
    }

    static func text(_ value: CBORValue, field: String) throws(RepoMessageError) -> String {
        guard case .textString(let text) = value else {
            throw .wrongType(field: field, expected: .textString, found: value.kind)
        }
        return text
    }
}

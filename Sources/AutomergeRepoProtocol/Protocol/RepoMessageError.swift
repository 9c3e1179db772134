/// Why bytes are not a ``RepoMessage`` we can read. Every way a peer's bytes
/// can be wrong ends in one of these; none traps.
///
/// Field names are those of the wire (`senderId`, `documentId`); a field
/// inside another is named by its path, e.g. `peerMetadata.isEphemeral`,
/// `newHeads.<storage id>.timestamp` or `add[2]`.
public enum RepoMessageError: Error, Equatable, Sendable {
    /// The message is `byteCount` bytes, more than the `limit` it was read
    /// with; refused before any of it is decoded.
    case tooLarge(byteCount: Int, limit: Int)
    /// The bytes are not one well-formed CBOR item (see ``CBORError``).
    case invalidCBOR(CBORError)
    /// The message is a CBOR item of kind `found`, not a map.
    case notAMap(found: ValueKind)
    /// A field the message's type requires is absent, `null` or `undefined`.
    case missingField(String)
    /// A field holds a `found` where the protocol has an `expected`.
    case wrongType(field: String, expected: ValueKind, found: ValueKind)
    /// A document id field is a string (or byte string) that is not a ``DocumentId``.
    case invalidDocumentId(field: String, DocumentIdError)

    /// The kinds of CBOR item a field can hold, to name what was expected and what was found.
    public enum ValueKind: String, Equatable, Sendable {
        /// An unsigned integer (or, where a count or timestamp is read, a
        /// float with a whole non-negative value, as cbor-x may write numbers).
        case unsignedInteger
        /// A negative integer.
        case negativeInteger
        /// A byte string.
        case byteString
        /// A text string.
        case textString
        /// An array.
        case array
        /// A map.
        case map
        /// A tagged item.
        case tagged
        /// `true` or `false`.
        case boolean
        /// `null`.
        case null
        /// `undefined`.
        case undefined
        /// Another simple value.
        case simple
        /// A floating-point number.
        case float
    }
}

extension CBORValue {
    /// What kind of item this is, to name it in a ``RepoMessageError``.
    var kind: RepoMessageError.ValueKind {
        switch self {
        case .unsigned: return .unsignedInteger
        case .negative: return .negativeInteger
        case .byteString: return .byteString
        case .textString: return .textString
        case .array: return .array
        case .map: return .map
        case .tagged: return .tagged
        case .bool: return .boolean
        case .null: return .null
        case .undefined: return .undefined
        case .simple: return .simple
        case .float: return .float
        }
    }
}

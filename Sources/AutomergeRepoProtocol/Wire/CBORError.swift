/// Why bytes are not one CBOR item we accept; `offset` is the byte position
/// (from the start of the input) of the head or byte at fault.
public enum CBORError: Error, Equatable, Sendable {
    /// The input ended before the item starting or continuing at `offset` was complete.
    case truncated(offset: Int)
    /// A string's byte count, or an array's or map's item count, at `offset`
    /// asks for more than the bytes left could hold (every item takes at least one byte).
    case lengthExceedsInput(offset: Int, declared: UInt64, available: Int)
    /// Arrays, maps and tags at `offset` are nested deeper than `limit`.
    case nestingTooDeep(offset: Int, limit: Int)
    /// Additional information 28, 29 or 30 (reserved by RFC 8949) at `offset`.
    case reservedAdditionalInfo(offset: Int, value: UInt8)
    /// Additional information 31 where no indefinite length exists: on an
    /// integer or a tag, or as a simple/float head other than the break code.
    case indefiniteLengthNotAllowed(offset: Int, majorType: UInt8)
    /// A chunk of an indefinite-length string at `offset` that is not a
    /// definite-length string of the same major type.
    case invalidChunk(offset: Int)
    /// A break code (0xff) at `offset` outside an indefinite-length item, or as a map's value.
    case unexpectedBreak(offset: Int)
    /// A text string (or a chunk of one) at `offset` that is not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// A two-byte simple value below 32 at `offset` (not well-formed, RFC 8949 §3.3).
    case invalidSimpleValue(offset: Int, value: UInt8)
    /// A map key at `offset` equal to an earlier key of the same map.
    case duplicateMapKey(offset: Int)
    /// Bytes remain at `offset` after the one top-level item.
    case trailingBytes(offset: Int)
}

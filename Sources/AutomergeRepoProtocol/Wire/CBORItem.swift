/// One CBOR item, opaque: the way in to the module's strict decoder
/// (`CBORDecoder`) and its encoder for the fuzz target `repo-message`
/// (`Fuzz/AutomergeFuzzing`), which imports this module with
/// `@_spi(Fuzzing)` to check CBOR round trips on arbitrary bytes.
///
/// Not API: the item model (`CBORValue`) stays internal, and no client
/// but the fuzz target should use this. `==` and hashing are the model's:
/// Swift's on each value, except that every NaN equals every NaN.
@_spi(Fuzzing) public struct CBORItem: Hashable, Sendable {
    let value: CBORValue

    /// The one CBOR item that `bytes` hold, whole, read as
    /// ``RepoMessage/init(decoding:maximumSize:)`` reads a message before
    /// looking at its fields (the default nesting limit).
    public init(decoding bytes: [UInt8]) throws(CBORError) {
        value = try CBORValue.decode(bytes)
    }

    /// The item as messages are written: RFC 8949's preferred serialization
    /// (shortest arguments, definite lengths, floats in the shortest width
    /// that holds them exactly, NaN as `f97e00`), map entries in the order read.
    public func encoded() -> [UInt8] { value.encoded() }

    /// How deep arrays, maps and tags may nest in an item that ``init(decoding:)`` accepts.
    public static var maximumNesting: Int { CBORDecoder.defaultMaxDepth }
}

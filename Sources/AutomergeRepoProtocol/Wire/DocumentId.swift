/// The id of a document in the automerge-repo network: 16 bytes (a random
/// UUID's), written as base58check of those bytes, e.g.
/// `4NMNnkMhL8jXrdJ9jamS58PAVdXu`.
///
/// automerge-repo's JavaScript accepts a base58check string of any length as
/// an id; samod (Rust) accepts only 16 bytes, and so do we: every id
/// automerge-repo creates is 16 bytes, and a fixed size bounds what a peer
/// can make us store.
public struct DocumentId: Hashable, Sendable, CustomStringConvertible {
    /// The number of bytes in an id.
    public static let byteCount = 16

    /// The id's 16 bytes.
    public let bytes: [UInt8]

    /// The id made of `bytes`, which must be 16.
    public init(bytes: [UInt8]) throws(DocumentIdError) {
        guard bytes.count == Self.byteCount else { throw .wrongLength(byteCount: bytes.count) }
        self.bytes = bytes
    }

    /// The id that `text` spells in base58check, as automerge-repo's `isValidDocumentId` reads it.
    public init(_ text: String) throws(DocumentIdError) {
        let payload: [UInt8]
        do {
            payload = try Base58Check.decode(text)
        } catch {
            throw .notBase58Check(error)
        }
        try self.init(bytes: payload)
    }

    /// A new random id: a version 4 UUID's bytes, as automerge-repo's `generateAutomergeUrl` makes them.
    public static func random() -> DocumentId {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A new random id drawn from `generator` (version and variant bits set as in a version 4 UUID).
    public static func random(using generator: inout some RandomNumberGenerator) -> DocumentId {
        var bytes = (0..<byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0f | 0x40
        bytes[8] = bytes[8] & 0x3f | 0x80
        // Sixteen bytes by construction.
        return try! DocumentId(bytes: bytes)
    }

    /// The id in base58check, as automerge-repo writes it in messages and URLs.
    public var description: String { Base58Check.encode(bytes) }
}

/// Why a string or byte string is not a ``DocumentId``.
public enum DocumentIdError: Error, Equatable, Sendable {
    /// The string is not base58check.
    case notBase58Check(Base58Error)
    /// The bytes are `byteCount` long, not 16.
    case wrongLength(byteCount: Int)
}

import Crypto

/// base58check as the npm `bs58check` package does it (automerge-repo's
/// document ids and URL heads): base58 of the payload followed by the first
/// four bytes of SHA-256(SHA-256(payload)).
enum Base58Check {
    /// `payload` with its checksum, in base 58.
    static func encode(_ payload: [UInt8]) -> String {
        Base58.encode(payload + checksum(payload))
    }

    /// The payload of the base58check string `text`, its checksum verified.
    static func decode(_ text: String) throws(Base58Error) -> [UInt8] {
        let bytes = try Base58.decode(text)
        guard bytes.count >= 4 else { throw .missingChecksum(length: bytes.count) }
        let payload = Array(bytes.dropLast(4))
        guard bytes.suffix(4).elementsEqual(checksum(payload)) else { throw .checksumMismatch }
        return payload
    }

    /// The first four bytes of SHA-256(SHA-256(payload)).
    static func checksum(_ payload: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: Array(SHA256.hash(data: payload))).prefix(4))
    }
}

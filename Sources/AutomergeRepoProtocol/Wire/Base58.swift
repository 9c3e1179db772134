/// Base58 with the Bitcoin alphabet, as the npm `bs58` package (and so
/// automerge-repo) writes it: each leading zero byte is a leading `1`, the
/// rest is the big-endian number in base 58 with no padding.
///
/// Base conversion is quadratic in the length, so decoding refuses strings
/// longer than ``maxEncodedLength`` before doing any work: an automerge-repo
/// document id is 28 characters or so, a head 50 or so.
enum Base58 {
    /// The 58 digits, in order: no `0`, `O`, `I` or `l`.
    static let alphabet: [UInt8] = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)

    /// The longest string ``decode(_:)`` reads (payloads up to about 370 bytes).
    static let maxEncodedLength = 512

    /// Each byte's digit value; 0xff for a byte that is no digit.
    private static let digitValues: [UInt8] = {
        var values = [UInt8](repeating: 0xff, count: 256)
        for (digit, character) in alphabet.enumerated() { values[Int(character)] = UInt8(digit) }
        return values
    }()

    /// `bytes` in base 58.
    static func encode(_ bytes: [UInt8]) -> String {
        let zeros = bytes.prefix { $0 == 0 }.count
        // Base-58 digits, least significant first.
        var digits: [UInt8] = []
        digits.reserveCapacity(bytes.count * 138 / 100 + 1)
        for byte in bytes[zeros...] {
            var carry = Int(byte)
            for index in digits.indices {
                carry += Int(digits[index]) << 8
                digits[index] = UInt8(carry % 58)
                carry /= 58
            }
            while carry > 0 {
                digits.append(UInt8(carry % 58))
                carry /= 58
            }
        }
        let text = [UInt8](repeating: alphabet[0], count: zeros) + digits.reversed().map { alphabet[Int($0)] }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes `text` spells in base 58.
    static func decode(_ text: String) throws(Base58Error) -> [UInt8] {
        let characters = Array(text.utf8)
        guard characters.count <= maxEncodedLength else {
            throw .tooLong(length: characters.count, limit: maxEncodedLength)
        }
        let zeros = characters.prefix { $0 == alphabet[0] }.count
        // Bytes, least significant first.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count * 733 / 1000 + 1)
        for (offset, character) in characters.enumerated().dropFirst(zeros) {
            let value = digitValues[Int(character)]
            guard value != 0xff else { throw .invalidCharacter(offset: offset) }
            var carry = Int(value)
            for index in bytes.indices {
                carry += Int(bytes[index]) * 58
                bytes[index] = UInt8(carry & 0xff)
                carry >>= 8
            }
            while carry > 0 {
                bytes.append(UInt8(carry & 0xff))
                carry >>= 8
            }
        }
        return [UInt8](repeating: 0, count: zeros) + bytes.reversed()
    }
}

/// Why a string is not base58, or not base58check (what a document id and
/// each head of an `automerge:` URL are).
public enum Base58Error: Error, Equatable, Sendable {
    /// The byte at `offset` (of the string's UTF-8) is not one of the 58 digits.
    case invalidCharacter(offset: Int)
    /// The string has `length` bytes, more than `limit`.
    case tooLong(length: Int, limit: Int)
    /// base58check: the string decodes to `length` bytes, fewer than a checksum's four.
    case missingChecksum(length: Int)
    /// base58check: the last four bytes are not the payload's checksum.
    case checksumMismatch
}

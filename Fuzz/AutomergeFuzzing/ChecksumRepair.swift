import Crypto

/// Rewrites the checksum of every complete document and change chunk in a
/// buffer, so that mutated files get past the checksum test and into the
/// decoders. The fuzzers' custom mutator applies it to most mutations (not
/// all: bad checksums stay covered). Compressed change chunks keep their
/// checksum (it is that of the inflated chunk).
public enum ChecksumRepair {
    static let magic: [UInt8] = [0x85, 0x6F, 0x4A, 0x83]

    public static func repair(_ bytes: UnsafeMutableBufferPointer<UInt8>) {
        var position = 0
        while position + 10 <= bytes.count, bytes[position..<position + 4].elementsEqual(magic) {
            let type = bytes[position + 8]
            var cursor = position + 9
            var length: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard cursor < bytes.count, shift < 64 else { return }
                let byte = bytes[cursor]
                cursor += 1
                length |= UInt64(byte & 0x7F) << shift
                shift += 7
                if byte & 0x80 == 0 { break }
            }
            guard length <= UInt64(bytes.count - cursor) else { return }
            let end = cursor + Int(length)
            if type == 0 || type == 1 {
                var hasher = SHA256()
                var prefix: [UInt8] = [type]
                var rest = length
                repeat {
                    let low = UInt8(rest & 0x7F)
                    rest >>= 7
                    prefix.append(rest == 0 ? low : low | 0x80)
                } while rest != 0
                hasher.update(data: prefix)
                hasher.update(bufferPointer: UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: bytes[cursor..<end])))
                for (offset, byte) in hasher.finalize().prefix(4).enumerated() { bytes[position + 4 + offset] = byte }
            }
            position = end
        }
    }

    /// `repair` on a copy.
    public static func repaired(_ bytes: [UInt8]) -> [UInt8] {
        var copy = bytes
        copy.withUnsafeMutableBufferPointer { repair($0) }
        return copy
    }
}

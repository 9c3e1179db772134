import AutomergeConformance
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
            guard let length = Bytes.uleb(in: bytes, at: &cursor), length <= UInt64(bytes.count - cursor) else { return }
            let end = cursor + Int(length)
            if type == 0 || type == 1 {
                var hasher = SHA256()
                hasher.update(data: [type] + Bytes.uleb(length))
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

extension ChecksumRepair {
    /// `repair` for the chunks of each change entry of a sync message that
    /// starts at `offset` (the `sync` target's input: two selector bytes,
    /// then the message). Stops where the message's structure breaks.
    public static func repairSyncMessage(_ bytes: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        var position = offset
        func uleb() -> Int? {
            guard let value = Bytes.uleb(in: bytes, at: &position), value <= UInt64(bytes.count) else { return nil }
            return Int(value)
        }
        func skip(_ count: Int) -> Bool {
            guard count <= bytes.count - position else { return false }
            position += count
            return true
        }
        func skipHashes() -> Bool {
            guard let count = uleb(), count <= bytes.count / 32 else { return false }
            return skip(count * 32)
        }
        // type byte, heads, need, have list
        guard skip(1), skipHashes(), skipHashes(), let haves = uleb() else { return }
        for _ in 0..<haves {
            guard skipHashes(), let length = uleb(), skip(length) else { return }
        }
        guard let entries = uleb() else { return }
        for _ in 0..<entries {
            guard let length = uleb(), length <= bytes.count - position else { return }
            repair(UnsafeMutableBufferPointer(rebasing: bytes[position..<position + length]))
            position += length
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Set where Element == ChangeHash {
    /// The hashes as one buffer of 32-byte hashes, to store a point in a
    /// document's history (read back with `Data.heads()`).
    ///
    /// The layout is automerge-swift's, so buffers stored by either read in
    /// both: the hashes ordered by the text of their byte arrays (`"[12, 255, ...]"`),
    /// greatest first.
    public func raw() -> Data {
        let ordered = map { (text: "\($0.bytes)", bytes: $0.bytes) }.sorted { $0.text > $1.text }
        var data = Data()
        data.reserveCapacity(count * 32)
        for hash in ordered { data.append(contentsOf: hash.bytes) }
        return data
    }
}

extension Data {
    /// The change hashes of a buffer `Set<ChangeHash>.raw()` wrote; `nil`
    /// when its length is not a multiple of 32.
    public func heads() -> Set<ChangeHash>? {
        guard count % 32 == 0 else { return nil }
        var hashes = Set<ChangeHash>(minimumCapacity: count / 32)
        var start = startIndex
        while start < endIndex {
            hashes.insert(ChangeHash(bytes: self[start..<start + 32]))
            start += 32
        }
        return hashes
    }
}

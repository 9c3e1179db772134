import Automerge
import Crypto
import Foundation

/// Revision ids derived from Automerge heads: `<generation>-<digest>`, the
/// generation being the number of changes in the document's history and the
/// digest the first 16 bytes, in hex, of the SHA-256 of the sorted heads.
/// Two replicas holding the same changes give the same id, whichever way the
/// changes reached them.
enum RevisionId {
    static func make(heads: Set<ChangeHash>, generation: Int) -> String {
        var hasher = SHA256()
        for head in heads.sorted() { hasher.update(data: head.bytes) }
        return "\(generation)-" + hasher.finalize().prefix(16).hexString
    }

    /// The generation of a well-formed id.
    /// - Throws: ``StoreError/invalidRevisionId(_:)``.
    static func generation(of revId: String) throws -> Int {
        let parts = revId.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, let generation = Int(parts[0]), generation > 0, parts[1].count == 32,
            parts[1].allSatisfy(\.isHexDigit)
        else { throw StoreError.invalidRevisionId(revId) }
        return generation
    }
}

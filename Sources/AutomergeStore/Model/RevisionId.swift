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
        make(encodedHeads: ChangeHash.encode(heads), generation: generation)
    }

    /// The id of the revision whose heads, as `revisions.heads` stores them, are `encodedHeads`.
    static func make(encodedHeads: Data, generation: Int) -> String {
        "\(generation)-" + SHA256.hash(data: encodedHeads).prefix(16).hexString
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

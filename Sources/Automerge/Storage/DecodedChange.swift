/// A change chunk decoded from bytes, with its hash and canonical bytes.
///
/// A class, so that the stages a batch of received changes goes through
/// (dedupe, order, check, apply, queue) hand a change on with one retain:
/// as a struct each copy retained and released every array it holds.
final class DecodedChange: Sendable {
    let stored: StoredChange
    let hash: ChangeHash
    /// The uncompressed change chunk.
    let bytes: [UInt8]
    /// Whether `bytes` are known to be exactly what a document chunk rebuilds
    /// for this change (changes read from a document chunk, and changes from
    /// a document's history), so that applying it need not check that.
    let isCanonical: Bool

    init(stored: StoredChange, hash: ChangeHash, bytes: [UInt8], isCanonical: Bool = false) {
        self.stored = stored
        self.hash = hash
        self.bytes = bytes
        self.isCanonical = isCanonical
    }
}

extension DecodedChange {
    /// A change chunk decoded as `stored`, whose uncompressed encoding is `encoded`.
    convenience init(stored: StoredChange, encoded: EncodedChange) {
        self.init(stored: stored, hash: encoded.hash, bytes: encoded.bytes)
    }

    /// This change, known to be in canonical form.
    func markedCanonical() -> DecodedChange {
        isCanonical ? self : DecodedChange(stored: stored, hash: hash, bytes: bytes, isCanonical: true)
    }
}

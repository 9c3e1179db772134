/// Bytes in and out: the document's bridge to the Storage layer.
extension DocumentState {
    /// Decodes one change chunk (plain or compressed).
    static func decodeChange(_ bytes: [UInt8]) throws(AutomergeError) -> DecodedChange {
        let chunks = try StorageBridge.changes(in: bytes)
        guard chunks.count == 1 else { throw .invalidChange("expected one change chunk") }
        return chunks[0]
    }

    /// Decodes the bytes of a change from a document's history (checked when it entered that history).
    static func decodeRecord(_ bytes: ArraySlice<UInt8>) throws(AutomergeError) -> DecodedChange {
        try decodeChange(Array(bytes)).markedCanonical()
    }

    /// Applies every chunk of `bytes` (change chunks or whole documents) as changes.
    mutating func applyEncoded(_ bytes: [UInt8]) throws(AutomergeError) {
        try apply(try StorageBridge.changes(in: bytes))
    }

    /// The binary form of the document.
    func save(compress: Bool) -> [UInt8] {
        StorageBridge.save(self, compress: compress)
    }

    /// A document loaded from bytes.
    static func load(_ bytes: [UInt8], actor: ActorId, encoding: TextEncoding, ownBytes: Bool = false)
        throws(AutomergeError) -> DocumentState
    {
        let state = try StorageBridge.load(bytes, actor: actor, encoding: encoding, ownBytes: ownBytes)
        FreedMemory.returnToSystem(afterLoading: bytes.count)
        return state
    }
}

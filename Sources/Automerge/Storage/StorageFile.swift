/// Decoding a whole file (any concatenation of chunks) at the storage level.
///
/// This is everything a load does before the CRDT sees the data: split the
/// bytes into chunks, check their framing, decode each, and for a document
/// chunk rebuild its changes and verify its heads. What to do with the
/// result (apply changes, queue ones with missing dependencies, reject a
/// document that is not first) is the op set's business.

/// One decoded chunk of a file.
enum DecodedChunk: Sendable {
    /// A document chunk, with the changes it was built from in change-row order.
    case document(StoredDocument, changes: [ReconstructedChange])
    /// A change chunk (compressed or not), with its uncompressed encoding.
    case change(StoredChange, encoded: EncodedChange)
}

extension Chunk {
    /// The uncompressed (type 1) form of a change chunk: the stored bytes for
    /// type 1, a rebuilt header around the inflated contents for type 2.
    var uncompressedChange: EncodedChange {
        if type == .change { return EncodedChange(bytes: Array(stored), hash: changeHash) }
        let bytes = ChunkFraming.frame(type: .change, checksum: digest[0..<4], contents: Array(contents))
        return EncodedChange(bytes: bytes, hash: changeHash)
    }
}

enum StorageFile {
    /// Decodes every chunk of `bytes`. Errors carry the index of the chunk
    /// they come from (``LoadError/inChunk(_:_:)``).
    static func decode(
        _ bytes: [UInt8], verifyHeads: Bool = true, limits: DecodeLimits = .default
    ) throws(LoadError) -> [DecodedChunk] {
        let chunks = try ChunkFraming.split(bytes, limits: limits)
        var decoded = [DecodedChunk]()
        decoded.reserveCapacity(chunks.count)
        for chunk in chunks {
            do throws(LoadError) {
                decoded.append(try decode(chunk, verifyHeads: verifyHeads, limits: limits))
            } catch {
                throw .inChunk(chunk.index, error)
            }
        }
        return decoded
    }

    /// Decodes one chunk.
    static func decode(_ chunk: Chunk, verifyHeads: Bool = true, limits: DecodeLimits = .default) throws(LoadError) -> DecodedChunk {
        switch chunk.type {
        case .document:
            let document = try DocumentChunk.decode(chunk, limits: limits)
            try MarkOrderValidation.validate(document)
            let changes = try ChangeReconstruction.reconstruct(document, verifyHeads: verifyHeads)
            return .document(document, changes: changes)
        case .change, .compressedChange:
            return .change(try ChangeChunk.decode(chunk, limits: limits), encoded: chunk.uncompressedChange)
        case .bundle:
            throw .unsupportedChunkType(chunk.type.rawValue)
        }
    }
}

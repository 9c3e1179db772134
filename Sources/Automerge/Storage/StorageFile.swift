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
    case document(StoredDocument, changes: ReconstructedChanges)
    /// A change chunk (compressed or not), with its uncompressed encoding.
    case change(DecodedChange)

    /// The ops and changes the chunk declares.
    var rows: Int {
        switch self {
        case let .document(document, _): document.ops.count + document.changes.count
        case let .change(change): change.stored.ops.count + 1
        }
    }
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
    /// Whether `bytes` start with the header of a document chunk (magic,
    /// checksum, type 0); nothing is verified.
    static func startsWithDocumentChunk(_ bytes: [UInt8]) -> Bool {
        bytes.count > 8 && bytes.starts(with: ChunkFraming.magic) && bytes[8] == ChunkType.document.rawValue
    }

    /// Work to run on a leading document chunk's rows (building the op
    /// set), which it reads from a feed (see ``OpRowFeed``).
    typealias DocumentBuild<Built> = (OpRowFeed) -> Result<Built, LoadError>

    /// From this many op rows, a leading document's op set is built on one
    /// core while its changes are rebuilt on the other.
    static let concurrentBuildThreshold = 20_000

    /// From this many op rows, the build also runs while the rows are
    /// decoded, fed them as they come (``OpRowFeed``). It saves about the
    /// decode's time, and costs peak memory: the op set is complete while
    /// the rebuild of the changes holds its work arrays, where it was about
    /// half built. Below this, where the decode is short, the build waits
    /// for the decode.
    static let feedThreshold = 200_000

    /// Decodes every chunk of `bytes`. Errors carry the index of the chunk
    /// they come from (``LoadError/inChunk(_:_:)``).
    static func decode(
        _ bytes: [UInt8], verifyHeads: Bool = true, limits: DecodeLimits = .default
    ) throws(LoadError) -> [DecodedChunk] {
        try decode(bytes, verifyHeads: verifyHeads, limits: limits,
                   buildingFromLeadingDocument: nil as DocumentBuild<Never>?).chunks
    }

    /// Decodes every chunk as ``decode(_:verifyHeads:limits:)`` does and,
    /// when the file starts with a document chunk, also runs `build` on it.
    /// For a large document `build` runs beside the rebuild of its changes,
    /// each on its own core (both only read the decoded rows); the document
    /// load returns the heap they freed to the system (see
    /// ``FreedMemory``). Errors are those `decode` throws,
    /// in the same order; `build`'s own error is returned, not thrown, for
    /// the caller to report after them.
    static func decode<Built>(
        _ bytes: [UInt8], verifyHeads: Bool = true, limits: DecodeLimits = .default,
        buildingFromLeadingDocument build: DocumentBuild<Built>?
    ) throws(LoadError) -> (chunks: [DecodedChunk], built: Result<Built, LoadError>?) {
        let framing = ChunkFraming.frames(bytes)
        var decoded = [DecodedChunk]()
        decoded.reserveCapacity(framing.frames.count)
        var built: Result<Built, LoadError>?
        // One row budget for the whole input: the per-chunk limits alone
        // let every small chunk claim the minimum, so many small chunks
        // could declare rows out of proportion to the input.
        var budget = RowBudget(limits: limits, inputSize: bytes.count)
        var rest = framing.frames[...]
        if let first = rest.first, first.type == .document {
            let document: DecodedChunk
            do throws(LoadError) {
                let chunk = try first.verified(limits: limits)
                (document, built) = try decodeDocument(chunk, verifyHeads: verifyHeads, limits: budget.limits, alongside: build)
                try budget.spend(document.rows)
            } catch {
                throw .inChunk(first.index, error)
            }
            decoded.append(document)
            rest = rest.dropFirst()
        }
        if ConcurrentChunkDecode.pays(for: rest) {
            decoded += try ConcurrentChunkDecode.decode(rest, verifyHeads: verifyHeads, limits: limits, budget: &budget)
        } else {
            for frame in rest { decoded.append(try decode(frame, verifyHeads: verifyHeads, limits: limits, budget: &budget)) }
        }
        if let failure = framing.failure { throw failure }
        return (decoded, built)
    }

    /// Verifies and decodes one chunk (inflating within `limits`, decoding
    /// within the rows `budget` leaves) and spends its rows.
    static func decode(
        _ frame: ChunkFrame, verifyHeads: Bool, limits: DecodeLimits, budget: inout RowBudget
    ) throws(LoadError) -> DecodedChunk {
        do throws(LoadError) {
            let decoded = try decode(try frame.verified(limits: limits), verifyHeads: verifyHeads, limits: budget.limits)
            try budget.spend(decoded.rows)
            return decoded
        } catch {
            throw .inChunk(frame.index, error)
        }
    }

    /// Decodes one chunk.
    static func decode(_ chunk: Chunk, verifyHeads: Bool = true, limits: DecodeLimits = .default) throws(LoadError) -> DecodedChunk {
        switch chunk.type {
        case .document:
            return try decodeDocument(chunk, verifyHeads: verifyHeads, limits: limits, alongside: nil as DocumentBuild<Never>?).chunk
        case .change, .compressedChange:
            return .change(DecodedChange(stored: try ChangeChunk.decode(chunk, limits: limits), encoded: chunk.uncompressedChange))
        case .bundle:
            throw .unsupportedChunkType(chunk.type.rawValue)
        }
    }

    /// A document chunk with its rebuilt changes, and what `build` made of
    /// it (see ``decode(_:verifyHeads:limits:buildingFromLeadingDocument:)``;
    /// `build` runs only when the rebuild succeeded or ran beside it).
    ///
    /// A large document's build runs on another core beside the rebuild of
    /// the changes; from ``feedThreshold`` rows it starts with the decode,
    /// which the checks and the rebuild follow on this thread.
    private static func decodeDocument<Built>(
        _ chunk: Chunk, verifyHeads: Bool, limits: DecodeLimits, alongside build: DocumentBuild<Built>?
    ) throws(LoadError) -> (chunk: DecodedChunk, built: Result<Built, LoadError>?) {
        var sections: DocumentChunk.Sections? = try DocumentChunk.sections(of: chunk, limits: limits)
        let rows = sections?.opRowCount
        /// The decoded document. The inflated columns go with the sections
        /// as soon as it is decoded (the rows keep the values'), not at the
        /// end of the load.
        func decode(feeding feed: OpRowFeed? = nil) throws(LoadError) -> StoredDocument {
            defer { sections = nil }
            return try DocumentChunk.decode(sections!, feed: feed)
        }
        func checkAndRebuild(_ document: StoredDocument) throws(LoadError) -> ReconstructedChanges {
            try MarkOrderValidation.validate(document)
            return try ChangeReconstruction.reconstruct(document, verifyHeads: verifyHeads)
        }
        guard let build, let rows, rows >= concurrentBuildThreshold else {
            let document = try decode()
            let changes = try checkAndRebuild(document)
            return (.document(document, changes: changes), build.map { $0(.finished(document)) })
        }
        guard rows >= feedThreshold else {
            let document = try decode()
            try MarkOrderValidation.validate(document)
            let (changes, built) = Concurrently.run({
                Result { () throws(LoadError) in try ChangeReconstruction.reconstruct(document, verifyHeads: verifyHeads) }
            }, { build(.finished(document)) })
            return (.document(document, changes: try changes.get()), built)
        }
        let feed = OpRowFeed()
        let (decoded, built) = Concurrently.run({ () -> Result<(StoredDocument, ReconstructedChanges), LoadError> in
            let document: StoredDocument
            do throws(LoadError) {
                document = try decode(feeding: feed)
            } catch {
                feed.finish(.failure(error))
                return .failure(error)
            }
            feed.finish(.success(document))
            return Result { () throws(LoadError) in (document, try checkAndRebuild(document)) }
        }, { build(feed) })
        let (document, changes) = try decoded.get()
        return (.document(document, changes: changes), built)
    }
}

/// The document's bridge to the Storage layer: turns decoded chunks into
/// changes to apply, and the document into chunks to write.
enum StorageBridge {
    /// The changes in `bytes`, in file order; a document chunk contributes
    /// the changes it was built from, in its change-row order.
    static func changes(in bytes: [UInt8]) throws(AutomergeError) -> [DecodedChange] {
        let chunks = try decode(bytes)
        var result: [DecodedChange] = []
        result.reserveCapacity(chunks.count)
        for chunk in chunks { try appendChanges(of: chunk, to: &result) }
        return result
    }

    static func decode(_ bytes: [UInt8]) throws(AutomergeError) -> [DecodedChunk] {
        do { return try StorageFile.decode(bytes) } catch { throw .load(error) }
    }

    /// Appends the changes of `chunk` to `changes`: a batch of many change
    /// chunks then takes no array per chunk. `canonical`: whether a change
    /// chunk is known to be in canonical form (see ``ChangeChecker``), which
    /// spares its check re-encoding it.
    static func appendChanges(
        of chunk: DecodedChunk, canonical: Bool = false, to changes: inout [DecodedChange]
    ) throws(AutomergeError) {
        switch chunk {
        case .document(_, let rebuilt):
            for change in rebuilt {
                let stored: StoredChange
                do { stored = try change.storedChange() } catch { throw .load(error) }
                changes.append(DecodedChange(stored: stored, hash: change.hash, bytes: Array(change.bytes), isCanonical: true))
            }
        case .change(let change):
            changes.append(canonical ? change.markedCanonical() : change)
        }
    }

    /// A document chunk, then the raw bytes of changes still waiting for
    /// their dependencies (Rust's `retain_orphans`).
    static func save(_ state: DocumentState, compress: Bool) -> [UInt8] {
        var bytes = state.documentChunk(deflating: compress ? .fast : nil)
        for orphan in state.queue { bytes.append(contentsOf: orphan.bytes) }
        return bytes
    }

    /// Loads a file. A leading document chunk is rebuilt directly from its op
    /// rows (beside the rebuild of its changes, see
    /// ``StorageFile/decode(_:buildingFromLeadingDocument:)``), its history
    /// from its change rows; later chunks apply as received changes. A file
    /// that does not start with a document must not leave changes waiting
    /// for dependencies. `ownBytes`: the bytes were written by this package
    /// (see ``Document/init(ownBytes:actor:)``).
    static func load(_ bytes: [UInt8], actor: ActorId, encoding: TextEncoding, ownBytes: Bool = false)
        throws(AutomergeError) -> DocumentState
    {
        var state = DocumentState(actor: actor, encoding: encoding)
        let decoded: (chunks: [DecodedChunk], built: Result<OpSet, LoadError>?)
        do {
            decoded = try StorageFile.decode(bytes, buildingFromLeadingDocument: { feed in
                Result { () throws(LoadError) in try OpSet.load(feed, encoding: encoding) }
            })
        } catch { throw .load(error) }
        var chunks = decoded.chunks[...]
        var startsWithDocument = false
        if case .document(let document, let changes)? = chunks.first, let built = decoded.built {
            startsWithDocument = true
            do { state.ops = try built.get() } catch { throw .load(.inChunk(0, error)) }
            // Room for the changes of the chunks after it too (mostly one a chunk).
            state.history.reserveCapacity(changes.count + decoded.chunks.count - 1)
            // The history starts with the document's changes, so a change's
            // row is its record index, and its dependencies' rows (each
            // below its own) are theirs.
            // Each document actor's op-set index, looked up once rather than per change.
            let actorIndices = document.actors.map { state.ops.actors.index(of: $0) }
            var authors = [UInt32]()
            authors.reserveCapacity(changes.count)
            // Each actor's changes are numbered 1, 2, 3... in row order: the decode checked it.
            try changes.rows.withUnsafeBufferPointer { rows throws(AutomergeError) in
                try document.changes.withUnsafeBufferPointer { metadata throws(AutomergeError) in
                    for row in rows.indices {
                        guard let author = actorIndices[metadata[row].actor] else {
                            throw .invalidChange("document change \(rows[row].hash) is by an actor the ops do not have")
                        }
                        authors.append(author)
                    }
                    // The rebuild laid each change out as the history keeps it
                    // (chunk, message, extra bytes): the history adopts its bytes.
                    state.history.addLoaded(
                        count: rows.count, hash: { rows[$0].hash },
                        heads: changes.heads,
                        bytes: changes.bytes
                    ) { row in
                        ChangeEntry(
                            hash: rows[row].hash, actor: authors[row], sequence: metadata[row].sequence,
                            startOp: rows[row].startOp, maxOp: rows[row].maxOp, time: metadata[row].time,
                            message: StoredChangeMetadata.changeMessage(metadata[row].message), dependencyIndices: metadata[row].dependencies,
                            extraBytes: metadata[row].extraBytes, bytes: .stored(rows[row].location, byteCount: rows[row].byteCount))
                    }
                }
            }
            chunks = chunks.dropFirst()
        }
        var received: [DecodedChange] = []
        for chunk in chunks { try appendChanges(of: chunk, canonical: ownBytes, to: &received) }
        try state.apply(received)
        if !startsWithDocument && !state.queue.isEmpty {
            throw .missingDependencies(state.queue.flatMap(\.stored.dependencies).filter { !state.history.contains($0) }.sorted())
        }
        state.lastEncodedHeads = state.history.heads
        return state
    }
}

extension ChangeCodec {
    /// What `Change.bytes` returns: compressed when over 256 bytes, as Rust's `Change::bytes()`.
    static func publicBytes(_ bytes: [UInt8], hash: ChangeHash) -> [UInt8] {
        EncodedChange(bytes: bytes, hash: hash).storageBytes
    }
}

/// Document chunks (type 0).
///
/// Contents: actors (uLEB count + length-prefixed ids, sorted bytewise) |
/// heads (uLEB count + 32-byte hashes, sorted) | change column metadata | op
/// column metadata | change column data | op column data | heads index (one
/// uLEB per head: its change row; absent in files of old JS versions).
///
/// With compression each column whose uncompressed data is at least 256
/// bytes is stored as raw DEFLATE with bit 3 of its spec set; the metadata
/// then gives the compressed length and the checksum covers the bytes as
/// stored. DEFLATE output differs between deflaters, so only uncompressed
/// saves are byte-comparable with Rust's.
enum DocumentChunk {
    /// `DEFLATE_MIN_SIZE` in Rust: columns at least this long get deflated.
    static let columnCompressionThreshold = 256

    // MARK: Encoding

    /// Encodes a document chunk (header included). Actors, heads and rows are
    /// written as given.
    static func encode(_ document: StoredDocument, compress: Bool) -> [UInt8] {
        let queue = compress ? Deflate.Queue() : nil
        let changeColumns = DeflatingColumns(DocumentChangeColumns.encode(document.changes), on: queue)
        let opColumns = DeflatingColumns(OpColumns.encode(document.ops, kind: .document), on: queue)
        queue?.drain()
        return encode(actors: document.actors, heads: document.heads, changeColumns: changeColumns.finished(),
                      opColumns: opColumns.finished(), headsIndex: document.headsIndex)
    }

    /// Encodes a document chunk from its finished columns (see
    /// ``DeflatingColumns``), in spec order.
    static func encode(
        actors: [ActorId], heads: [ChangeHash], changeColumns: [(spec: ColumnSpec, bytes: [UInt8])],
        opColumns: [(spec: ColumnSpec, bytes: [UInt8])], headsIndex: [Int]
    ) -> [UInt8] {
        var contents = [UInt8]()
        LEB128.appendUnsigned(UInt64(actors.count), to: &contents)
        for actor in actors { contents.appendLengthPrefixed(actor.bytes) }
        LEB128.appendUnsigned(UInt64(heads.count), to: &contents)
        for head in heads { contents.append(contentsOf: head.bytes) }
        ColumnLayout.write(changeColumns.map { ($0.spec, $0.bytes.count) }, to: &contents)
        ColumnLayout.write(opColumns.map { ($0.spec, $0.bytes.count) }, to: &contents)
        for column in changeColumns { contents.append(contentsOf: column.bytes) }
        for column in opColumns { contents.append(contentsOf: column.bytes) }
        for index in headsIndex {
            LEB128.appendUnsigned(UInt64(UInt(bitPattern: index)), to: &contents)
        }
        return ChunkFraming.frame(type: .document, contents: contents).bytes
    }

    // MARK: Decoding

    /// Decodes a document chunk whose framing and checksum ``ChunkFraming``
    /// has verified, with every check Rust makes on load except the heads
    /// (see ``ChangeReconstruction``).
    static func decode(_ chunk: Chunk, limits: DecodeLimits = .default) throws(LoadError) -> StoredDocument {
        try decode(try sections(of: chunk, limits: limits))
    }

    /// A document chunk read as far as its columns, inflated: what is left
    /// is decoding their rows.
    struct Sections {
        let actors: [ActorId]
        let heads: [ChangeHash]
        let changeColumns: ColumnSet
        let opColumns: ColumnSet
        let headsIndex: [Int]
        /// The most rows a column may decode to.
        let rowLimit: Int

        /// How many op rows the chunk holds, as its action column counts
        /// them; nil when that column does not decode (the full decode then
        /// says why).
        var opRowCount: Int? {
            guard let actions = opColumns[.action] else { return 0 }
            var reader = RLEReader<UInt64>(actions, column: "action", check: ColumnCheck(canonical: true, nullable: false, limit: rowLimit))
            return try? reader.count()
        }
    }

    /// Reads a document chunk's header and columns, inflating the deflated ones.
    static func sections(of chunk: Chunk, limits: DecodeLimits = .default) throws(LoadError) -> Sections {
        guard chunk.type == .document else {
            throw .unexpectedChunkType(expected: ChunkType.document.rawValue, found: chunk.type.rawValue)
        }
        var reader = ByteReader(chunk.contents)
        let actors = try reader.readActors("document actors")
        let heads = try reader.readHashes("document heads")
        let changeLayout = try ColumnLayout.read(&reader, section: "document change")
        let opLayout = try ColumnLayout.read(&reader, section: "document op")

        var inflatedTotal = 0
        func readColumns(_ layout: ColumnLayout, _ section: String) throws(LoadError) -> [(spec: ColumnSpec, bytes: ArraySlice<UInt8>)] {
            var columns = [(spec: ColumnSpec, bytes: ArraySlice<UInt8>)]()
            for column in layout.columns {
                let stored = try reader.readBytes(UInt64(column.length), "\(section) column \(column.spec)")
                var bytes = stored
                if column.spec.deflate && !stored.isEmpty {
                    let budget = limits.maxInflatedBytes - inflatedTotal
                    let limit = min(limits.inflateLimit(compressedSize: stored.count), budget)
                    bytes = try Deflate.inflate(stored, limit: limit, what: "\(section) column \(column.spec)")[...]
                }
                inflatedTotal += bytes.count
                columns.append((column.spec.normalized, bytes))
            }
            return columns
        }
        let changeColumns = try readColumns(changeLayout, "document change")
        let opColumns = try readColumns(opLayout, "document op")

        var headsIndex = [Int]()
        if !reader.isAtEnd {
            headsIndex.reserveCapacity(heads.count)
            for _ in 0..<heads.count {
                headsIndex.append(Int(truncatingIfNeeded: try reader.readUnsigned("document heads index")))
            }
            guard reader.isAtEnd else { throw .trailingBytes(what: "document heads index") }
        }
        return Sections(actors: actors, heads: heads, changeColumns: ColumnSet(layout: changeColumns),
                        opColumns: ColumnSet(layout: opColumns), headsIndex: headsIndex,
                        rowLimit: limits.rowLimit(dataSize: inflatedTotal))
    }

    /// Decodes the rows of a document chunk's sections, handing the op rows
    /// to `feed` as they are decoded if given (see ``OpRowFeed``; the
    /// caller finishes the feed).
    static func decode(_ sections: Sections, feed: OpRowFeed? = nil) throws(LoadError) -> StoredDocument {
        let decodeChanges = {
            Result { () throws(LoadError) in
                try DocumentChangeColumns.decode(sections.changeColumns, actorCount: sections.actors.count, rowLimit: sections.rowLimit)
            }
        }
        let decodeOps = {
            Result { () throws(LoadError) in
                let ops = try OpColumns.decode(
                    sections.opColumns, kind: .document, actorCount: sections.actors.count, canonical: true,
                    rowLimit: sections.rowLimit, feeding: feed.map { ($0, sections.actors) })
                feed?.finishOps(actors: sections.actors, ops: ops)
                return ops
            }
        }
        // The two sections are independent: a long history's change
        // columns take as long to decode as its op columns. (A short one's
        // are not worth a second core, nor the heap a second thread's
        // allocations start.) On a thread of their own: a load's op set is
        // built on a dispatch worker from the fed rows, and Dispatch (as
        // wide as the cores) then had no worker for them, so this thread
        // decoded both.
        let (changes, ops) = sections.changeColumns.byteCount >= concurrentDecodeThreshold
            ? Concurrently.runOnNewThread(decodeChanges, decodeOps)
            : (decodeChanges(), decodeOps())
        // Errors in the order a one-core decode meets them: changes first.
        return StoredDocument(actors: sections.actors, heads: sections.heads, changes: try changes.get(), ops: try ops.get(),
                              headsIndex: sections.headsIndex)
    }

    /// From how many bytes of change columns a document decodes its change
    /// and op sections on two cores.
    static let concurrentDecodeThreshold = 64 * 1024
}

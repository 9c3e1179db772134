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
        guard chunk.type == .document else {
            throw .unexpectedChunkType(expected: ChunkType.document.rawValue, found: chunk.type.rawValue)
        }
        return try decodeContents(chunk.contents, limits: limits)
    }

    /// Decodes the contents of a document chunk.
    static func decodeContents(_ contents: ArraySlice<UInt8>, limits: DecodeLimits = .default) throws(LoadError) -> StoredDocument {
        var reader = ByteReader(contents)
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

        let rowLimit = limits.rowLimit(dataSize: inflatedTotal)
        let decodeChanges = {
            Result { () throws(LoadError) in
                try DocumentChangeColumns.decode(ColumnSet(layout: changeColumns), actorCount: actors.count, rowLimit: rowLimit)
            }
        }
        let decodeOps = {
            Result { () throws(LoadError) in
                try OpColumns.decode(ColumnSet(layout: opColumns), kind: .document, actorCount: actors.count, canonical: true,
                                     rowLimit: rowLimit)
            }
        }
        // The two sections are independent: a long history's change
        // columns take as long to decode as its op columns. (A short one's
        // are not worth a second core, nor the heap a second thread's
        // allocations start.)
        let changeBytes = changeColumns.reduce(0) { $0 + $1.bytes.count }
        let (changes, ops) = changeBytes >= concurrentDecodeThreshold
            ? Concurrently.run(decodeChanges, decodeOps)
            : (decodeChanges(), decodeOps())
        // Errors in the order a one-core decode meets them: changes first.
        return StoredDocument(actors: actors, heads: heads, changes: try changes.get(), ops: try ops.get(),
                              headsIndex: headsIndex)
    }

    /// From how many bytes of change columns a document decodes its change
    /// and op sections on two cores.
    static let concurrentDecodeThreshold = 64 * 1024
}

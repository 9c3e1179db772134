/// Change chunks (type 1) and compressed change chunks (type 2).
///
/// Contents: deps (uLEB count + 32-byte hashes) | author (uLEB length +
/// bytes) | seq (uLEB) | startOp (uLEB, 1...UInt32.max) | time (sLEB) |
/// message (uLEB length + UTF-8; 0 = none) | other actors (uLEB count +
/// length-prefixed ids) | op column metadata | op column data | extra bytes
/// (everything left, kept and hashed).
///
/// The change hash is SHA-256 of the *uncompressed* chunk's type, length and
/// contents. Rust's `Change::bytes()` stores a change compressed (type 2)
/// when the whole uncompressed chunk is longer than 256 bytes; its
/// `raw_bytes()` (used for `save_after`, sync and orphans) never is.

/// A change chunk as bytes, with its hash.
struct EncodedChange: Sendable {
    /// The uncompressed (type 1) chunk, header included.
    let bytes: [UInt8]
    /// SHA-256 of the uncompressed chunk.
    let hash: ChangeHash

    /// The form `Change::bytes()` returns: a compressed (type 2) chunk when
    /// the uncompressed chunk exceeds ``ChangeChunk/compressionThreshold``
    /// bytes, else the uncompressed chunk.
    var storageBytes: [UInt8] {
        guard bytes.count > ChangeChunk.compressionThreshold else { return bytes }
        guard let contents = ChunkFraming.contents(ofFramed: bytes) else { preconditionFailure("an encoded change is one chunk") }
        return ChunkFraming.frame(
            type: .compressedChange, checksum: bytes[4..<8], contents: Deflate.compress(contents))
    }
}

enum ChangeChunk {
    /// `DEFLATE_MIN_SIZE` in Rust.
    static let compressionThreshold = 256

    // MARK: Encoding

    /// Encodes a change as an uncompressed change chunk. Deps, actors and ops
    /// are written as given (the caller sorts them as the format requires).
    static func encode(_ change: StoredChange) -> EncodedChange {
        encode(change.header, opColumns: OpColumns.encode(change.ops, kind: .change))
    }

    /// Encodes a change whose ops are already in columns (see
    /// ``OpColumnWriter``), as rebuilding a document's changes does.
    static func encode(_ header: ChangeHeader, opColumns: [(ColumnSpec, [UInt8])]) -> EncodedChange {
        let columns = ColumnSet.nonEmpty(opColumns)
        var laidOut = [UInt8]()
        ColumnLayout.write(columns.map { ($0.spec, $0.bytes.count) }, to: &laidOut)
        for column in columns { laidOut.append(contentsOf: column.bytes) }
        var contents = [UInt8]()
        return encode(header, opColumns: laidOut[...], contents: &contents)
    }

    /// Encodes a change whose op columns are laid out already, as a change
    /// chunk holds them: their layout (specs and lengths, in spec order),
    /// then their bytes. `contents` is scratch space, kept between calls so
    /// that a run of changes reuses it.
    static func encode(_ header: ChangeHeader, opColumns: ArraySlice<UInt8>, contents: inout [UInt8]) -> EncodedChange {
        contents.removeAll(keepingCapacity: true)
        appendContentsAfterDependencies(
            author: header.actors.first?.bytes ?? [], sequence: header.sequence, startOp: header.startOp, time: header.time,
            message: header.message, otherActors: header.actors.dropFirst().lazy.map(\.bytes),
            extraBytes: header.extraBytes, to: &contents) { $0.append(contentsOf: opColumns) }
        return encode(dependencies: header.dependencies, contentsAfterDependencies: contents[...])
    }

    /// Appends what a change chunk's contents hold after its dependencies:
    /// the part that does not depend on other changes' hashes, which a
    /// document's changes can therefore encode on any core, in any order.
    /// `writeOpColumns` appends the op columns as a change lays them out
    /// (layout, then the columns' bytes), in place.
    static func appendContentsAfterDependencies(
        author: [UInt8], sequence: UInt64, startOp: UInt64, time: Int64, message: String?,
        otherActors: some Collection<[UInt8]>, extraBytes: [UInt8], to contents: inout [UInt8],
        writeOpColumns: (inout [UInt8]) -> Void
    ) {
        contents.appendLengthPrefixed(author)
        LEB128.appendUnsigned(sequence, to: &contents)
        LEB128.appendUnsigned(startOp, to: &contents)
        LEB128.appendSigned(time, to: &contents)
        contents.appendLengthPrefixed((message ?? "").utf8)
        LEB128.appendUnsigned(UInt64(otherActors.count), to: &contents)
        for actor in otherActors { contents.appendLengthPrefixed(actor) }
        writeOpColumns(&contents)
        contents.append(contentsOf: extraBytes)
    }

    /// The change chunk of `dependencies` followed by the rest of its
    /// contents (``appendContentsAfterDependencies(author:sequence:startOp:time:message:otherActors:extraBytes:to:writeOpColumns:)``),
    /// written and hashed in one buffer.
    static func encode(dependencies: [ChangeHash], contentsAfterDependencies rest: ArraySlice<UInt8>) -> EncodedChange {
        var bytes = [UInt8]()
        bytes.reserveCapacity(encodedSize(dependencyCount: dependencies.count, contentsAfterDependencies: rest.count))
        let hash = appendEncoded(dependencies: dependencies, contentsAfterDependencies: rest, to: &bytes)
        return EncodedChange(bytes: bytes, hash: hash)
    }

    /// The size of the chunk ``appendEncoded(dependencies:contentsAfterDependencies:to:)`` writes.
    static func encodedSize(dependencyCount: Int, contentsAfterDependencies restCount: Int) -> Int {
        ChunkFraming.frameSize(contentsLength: contentsLength(dependencyCount: dependencyCount, restCount: restCount))
    }

    /// Appends the change chunk of ``encode(dependencies:contentsAfterDependencies:)``
    /// to `out`, in place; returns its hash.
    static func appendEncoded(
        dependencies: some Collection<ChangeHash>, contentsAfterDependencies rest: ArraySlice<UInt8>, to out: inout [UInt8]
    ) -> ChangeHash {
        let length = contentsLength(dependencyCount: dependencies.count, restCount: rest.count)
        return ChunkFraming.appendFrame(type: .change, contentsLength: length, to: &out) { out in
            LEB128.appendUnsigned(UInt64(dependencies.count), to: &out)
            for dependency in dependencies { dependency.append(to: &out) }
            out.append(contentsOf: rest)
        }
    }

    private static func contentsLength(dependencyCount: Int, restCount: Int) -> Int {
        LEB128.unsignedSize(UInt64(dependencyCount)) + 32 * dependencyCount + restCount
    }

    // MARK: Decoding

    /// Decodes a change (type 1) or compressed change (type 2) chunk whose
    /// framing and checksum ``ChunkFraming`` has verified.
    static func decode(_ chunk: Chunk, limits: DecodeLimits = .default) throws(LoadError) -> StoredChange {
        guard chunk.isChange else {
            throw .unexpectedChunkType(expected: ChunkType.change.rawValue, found: chunk.type.rawValue)
        }
        return try decodeContents(chunk.contents, limits: limits)
    }

    /// Decodes the contents of an uncompressed change chunk.
    static func decodeContents(_ contents: ArraySlice<UInt8>, limits: DecodeLimits = .default) throws(LoadError) -> StoredChange {
        var reader = ByteReader(contents)
        let dependencies = try reader.readHashes("change dependencies")
        let author = try reader.readActor("change actor")
        let sequence = try reader.readUnsigned("change seq")
        let startOp = try reader.readUnsigned("change start op")
        guard startOp >= 1 && startOp <= UInt64(UInt32.max) else { throw .startOpOutOfRange(startOp) }
        let time = try reader.readSigned("change time")
        let message = try reader.readString("change message")
        let others = try reader.readActors("change other actors")
        let layout = try ColumnLayout.read(&reader, section: "change op")
        if layout.columns.contains(where: { $0.spec.deflate }) { throw .compressedColumnInChange }
        var columns = [(spec: ColumnSpec, bytes: ArraySlice<UInt8>)]()
        columns.reserveCapacity(layout.columns.count)
        for column in layout.columns {
            columns.append((column.spec, try reader.readBytes(UInt64(column.length), "change op column \(column.spec)")))
        }
        let extraBytes = Array(reader.readRest())

        let actors = [author] + others
        let ops = Array(try OpColumns.decode(
            ColumnSet(layout: columns), kind: .change, actorCount: actors.count, canonical: false,
            rowLimit: limits.rowLimit(dataSize: contents.count)))
        if !ops.isEmpty && startOp + UInt64(ops.count - 1) > UInt64(UInt32.max) {
            throw .opCounterOverflow(column: "op id", row: ops.count - 1)
        }
        for (row, op) in ops.enumerated() where !predecessorsAreOrdered(op.predecessors, actors: actors) {
            throw .invalidValue(column: "pred", row: row, reason: "predecessors not in ascending op id order")
        }
        return StoredChange(
            dependencies: dependencies, actors: actors, sequence: sequence, startOp: startOp, time: time,
            message: message.isEmpty ? nil : message, ops: ops, extraBytes: extraBytes)
    }

    /// Whether op ids are in (non-strictly) ascending Lamport order: by
    /// counter, then by actor bytes (the check of Rust's change builder).
    static func predecessorsAreOrdered(_ ids: StoredOpIdList, actors: [ActorId]) -> Bool {
        guard ids.count > 1 else { return true }
        for i in 1..<ids.count {
            let (a, b) = (ids[i - 1], ids[i])
            if b.counter < a.counter { return false }
            if b.counter == a.counter && actors[b.actor].bytes.lexicographicallyPrecedes(actors[a.actor].bytes) {
                return false
            }
        }
        return true
    }
}

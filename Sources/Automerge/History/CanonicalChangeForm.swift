/// Proves received change chunks canonical: each change's ops are encoded
/// again as a commit writes them, and the bytes must be the chunk's own.
///
/// A change in any other form (actors, predecessors or dependencies out of
/// canonical order, non-canonical column encodings, deletes with values)
/// would get another hash once a document chunk stored and rebuilt it, and
/// the saved document would fail its own heads check on load. Comparing
/// bytes is comparing hashes here (the chunk's hash covers exactly these
/// bytes), without hashing again. The column writer and buffers are kept
/// from one change to the next: a batch of small changes then allocates
/// almost nothing for the check.
struct CanonicalChangeForm {
    private var rows = ChangeCodec.RowWriter()
    private var layout: [(spec: ColumnSpec, length: Int)] = []
    private var contents: [UInt8] = []

    /// Whether `change`, whose ops in the op set's terms are `ops` (its
    /// author's index `author` in `actors`), is byte for byte what a
    /// commit of those ops would write.
    mutating func matches(_ change: DecodedChange, author: UInt32, ops: [ChangeOp], actors: ActorTable) -> Bool {
        var mentioned = ActorFlags()
        for index in ops.indices { mentioned.note(ops[index]) }
        rows.restart(mentioning: mentioned, author: author, actors: actors)
        for index in ops.indices { rows.append(ops[index]) }
        contents.removeAll(keepingCapacity: true)
        let stored = change.stored
        rows.finishContents(
            sequence: stored.sequence, startOp: stored.startOp, dependencies: stored.dependencies, time: stored.time,
            message: stored.message, extraBytes: stored.extraBytes, to: &contents, layout: &layout)
        return Self.contents(of: change.bytes) == contents[...]
    }

    /// The contents of an uncompressed change chunk: what follows its
    /// magic, checksum, type and length (which the hash covers as a number,
    /// whatever its encoding).
    private static func contents(of chunk: [UInt8]) -> ArraySlice<UInt8>? {
        var start = ChunkFraming.fixedHeaderSize
        guard chunk.count > start, let length = try? LEB128.readUnsigned(chunk[...], at: &start, mode: .lenient, what: "change chunk length"),
              length == chunk.count - start else { return nil }
        return chunk[start...]
    }
}

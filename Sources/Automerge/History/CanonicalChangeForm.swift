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
        // Each op is read field by field through a pointer: lent whole,
        // even from a buffer, it was copied (its value and predecessors
        // retained and released).
        ops.withUnsafeBufferPointer { ops in
            var mentioned = ActorFlags()
            for index in ops.indices { mentioned.note(ops.baseAddress! + index) }
            rows.restart(mentioning: mentioned, author: author, actors: actors)
            for index in ops.indices { rows.append(ops.baseAddress! + index) }
        }
        contents.removeAll(keepingCapacity: true)
        rows.finishContents(change.stored.header, to: &contents, layout: &layout)
        guard let framed = ChunkFraming.contents(ofFramed: change.bytes) else { return false }
        return framed.withUnsafeBytes { framed in contents.withUnsafeBytes { framed.hasSameBytes(as: $0) } }
    }
}

/// The heads Rust 0.11 reports for a file, from its chunks as written: a
/// change's hash is the SHA-256 of its chunk as it stands in the file
/// (type, length, contents), whatever form a writer would give the same
/// change, and a document's heads are the ones it stores (Rust refuses a
/// document whose changes rebuild to other heads). Read with the
/// harness's own chunk reader, not the implementation under test.
enum WrittenHeads {
    /// The sorted hex heads of `file`: of a file of one document chunk, or
    /// of a file of uncompressed change chunks (the changes whose
    /// dependencies all arrive, less those another applied change depends
    /// on). Nil for any other file: compressed changes (hashed inflated),
    /// documents followed by changes, and broken framing.
    static func of(_ file: [UInt8]) -> [String]? {
        guard let chunks = RawChunk.split(file), !chunks.isEmpty else { return nil }
        if chunks.count == 1, chunks[0].type == 0 {
            return DocumentLayout.parse(chunks[0].contents).map { $0.0.heads.map(Bytes.hex).sorted() }
        }
        var changes: [(hash: [UInt8], dependencies: [[UInt8]])] = []
        for chunk in chunks {
            guard chunk.type == 1, let (layout, _) = ChangeLayout.parse(chunk.contents) else { return nil }
            changes.append((RawChunk.digest(type: 1, contents: chunk.contents), layout.dependencies))
        }
        var applied: Set<[UInt8]> = []
        var progressed = true
        while progressed {
            progressed = false
            for change in changes where !applied.contains(change.hash) && change.dependencies.allSatisfy(applied.contains) {
                applied.insert(change.hash)
                progressed = true
            }
        }
        let depended = Set(changes.filter { applied.contains($0.hash) }.flatMap(\.dependencies))
        return applied.subtracting(depended).map(Bytes.hex).sorted()
    }
}

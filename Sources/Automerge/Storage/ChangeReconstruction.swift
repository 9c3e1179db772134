/// Rebuilding the change chunks a document chunk was made from.
///
/// A document stores each op once with its successors, and no deletes; the
/// change hashes (and so the heads) are hashes of change chunks, so loading
/// a document means rebuilding every change exactly as its author encoded
/// it (`op_set2/change/collector.rs` in Rust):
///
/// 1. Every successor id that is not a stored op is a delete: one delete op
///    with that id, in the object of the ops naming it, whose key is the
///    element id of an insert it deletes or else that op's key, and whose
///    predecessors are all ops naming it.
/// 2. An op's predecessors are the ops that list it as a successor, in row
///    order (which is op id order within a key, as Rust writes documents).
/// 3. Op (actor a, counter c) belongs to a's change with the smallest
///    maxOp >= c. A change's ops, sorted by counter, must be contiguous and
///    end at its maxOp; its startOp is its first op's counter (maxOp + 1 if
///    it has none).
/// 4. The other actors of a change are the actors its ops mention, sorted
///    bytewise; its deps are the hashes of earlier rows, in stored order.
///
/// The heads derived from the rebuilt hashes must equal the stored heads.

/// The changes rebuilt from a document, in its change-row order: each
/// change's chunk, message and extra bytes end to end in one byte store
/// (laid out as a ``ChangeGraph`` keeps them, which adopts the store), so
/// that a long history's rebuild does not hold a heap block per change.
struct ReconstructedChanges: RandomAccessCollection, Sendable {
    /// What a change needs beside its bytes.
    struct Row: Sendable {
        let hash: ChangeHash
        let startOp: UInt64
        /// The counter of the change's last op (startOp - 1 when it has none).
        let maxOp: UInt64
        /// Where the chunk starts in ``bytes``; its message's UTF-8 and its
        /// extra bytes follow it.
        let location: ChangeByteStore.Location
        let byteCount: Int
    }

    private(set) var rows: [Row] = []
    private(set) var bytes = ChangeByteStore()
    /// The changes no other change depends on, sorted (those the document
    /// stores, once the rebuild has checked them).
    fileprivate(set) var heads: [ChangeHash] = []

    var startIndex: Int { rows.startIndex }
    var endIndex: Int { rows.endIndex }

    subscript(index: Int) -> ReconstructedChange {
        let row = rows[index]
        return ReconstructedChange(hash: row.hash, startOp: row.startOp, maxOp: row.maxOp,
                                   bytes: bytes[row.location, count: row.byteCount])
    }

    mutating func reserveCapacity(_ count: Int) { rows.reserveCapacity(count) }

    /// Adds a change: its chunk, written in place from its dependencies
    /// and the rest of its contents (see
    /// ``ChangeChunk/appendEncoded(dependencies:contentsAfterDependencies:to:)``),
    /// then its message and extra bytes. Returns its hash.
    mutating func append(
        dependencies: some Collection<ChangeHash>, contentsAfterDependencies rest: ArraySlice<UInt8>,
        startOp: UInt64, maxOp: UInt64, message: String?, extraBytes: [UInt8]
    ) -> ChangeHash {
        let count = ChangeChunk.encodedSize(dependencyCount: dependencies.count, contentsAfterDependencies: rest.count)
        let (location, hash) = bytes.append(count: count, message: message, extraBytes: extraBytes) { out in
            ChangeChunk.appendEncoded(dependencies: dependencies, contentsAfterDependencies: rest, to: &out)
        }
        rows.append(Row(hash: hash, startOp: startOp, maxOp: maxOp, location: location, byteCount: count))
        return hash
    }
}

/// A change rebuilt from a document: its hash, its op range and its chunk.
/// ``storedChange()`` decodes the chunk for the rare caller that needs
/// the ops as values.
struct ReconstructedChange: Sendable {
    let hash: ChangeHash
    let startOp: UInt64
    /// The counter of the change's last op (startOp - 1 when it has none).
    let maxOp: UInt64
    /// The uncompressed change chunk.
    let bytes: ArraySlice<UInt8>

    /// The change with its ops.
    func storedChange() throws(LoadError) -> StoredChange {
        try ChangeChunk.decode(try ChunkFraming.split(Array(bytes))[0])
    }
}

enum ChangeReconstruction {
    /// From how many changes a document's ops are encoded on two cores.
    static let changesEncodedInParallel = 4096
    /// The most chunks a long history's changes are encoded in: enough
    /// that the hashing of the last one is short, few enough that handing
    /// them over costs nothing.
    static let maxEncodingChunks = 32

    enum OpRef {
        case stored(Int)
        case delete(Int)
    }

    struct Delete {
        let id: StoredOpId
        let object: StoredOpId?
        let key: StoredKey
        var predecessorCount = 1
    }

    /// Maps document actor indices to a change's own actor indices: 0 for
    /// the author, then the other actors in their bytewise order.
    struct ChangeActors {
        let author: Int
        /// (document index, change index) of the other actors, by document index.
        let others: [(document: Int, change: Int)]

        func callAsFunction(_ id: StoredOpId) -> StoredOpId {
            guard id.actor != author else { return StoredOpId(counter: id.counter, actor: 0) }
            var low = 0, high = others.count
            while low < high {
                let mid = (low + high) / 2
                if others[mid].document < id.actor { low = mid + 1 } else { high = mid }
            }
            return StoredOpId(counter: id.counter, actor: others[low].change)
        }

        func key(_ key: StoredKey) -> StoredKey {
            if case .element(let e?) = key { return .element(self(e)) }
            return key
        }

        /// The key of a stored row, mapped.
        func key(of row: StoredOpRows.Row, in stored: StoredOpRows) -> StoredKey {
            row.isMapKey ? stored.key(of: row) : .element(row.element.map(callAsFunction))
        }
    }

    /// Rebuilds the changes of `document` in change-row order and checks that
    /// they produce the stored heads (unless `verifyHeads` is false).
    static func reconstruct(_ document: StoredDocument, verifyHeads: Bool = true) throws(LoadError) -> ReconstructedChanges {
        var statistics = OpIdTable.Statistics()
        return try reconstruct(document, verifyHeads: verifyHeads, statistics: &statistics)
    }

    /// ``reconstruct(_:verifyHeads:)``, adding the size and work of its op
    /// id tables to `statistics` (for the tests that bound them).
    static func reconstruct(
        _ document: StoredDocument, verifyHeads: Bool, statistics: inout OpIdTable.Statistics
    ) throws(LoadError) -> ReconstructedChanges {
        try document.ops.rows.withUnsafeBufferPointer { ops throws(LoadError) in
            try document.ops.groupIds.withUnsafeBufferPointer { groupIds throws(LoadError) in
                try document.ops.valueBytes.withUnsafeBufferPointer { valueBytes throws(LoadError) in
                    try reconstruct(document, ops: ops, groupIds: groupIds, valueBytes: valueBytes, verifyHeads: verifyHeads,
                                    statistics: &statistics)
                }
            }
        }
    }

    /// The rebuild, reading the rows and their stores in place (see
    /// ``StoredOpRows``): values are copied into the changes as the bytes
    /// they were decoded from. The numbered steps of the header comment are
    /// ``Rebuild``'s methods, in order.
    private static func reconstruct(
        _ document: StoredDocument, ops: UnsafeBufferPointer<StoredOpRows.Row>, groupIds: UnsafeBufferPointer<StoredOpId>,
        valueBytes: UnsafeBufferPointer<UInt8>, verifyHeads: Bool, statistics: inout OpIdTable.Statistics
    ) throws(LoadError) -> ReconstructedChanges {
        var rebuild = try Rebuild(document, ops: ops, groupIds: groupIds, valueBytes: valueBytes)
        try rebuild.findPredecessorsAndDeletes(statistics: &statistics)
        try rebuild.assignOpsToChanges()
        var result = rebuild.encodeAndHashChanges()
        result.heads = heads(of: rebuild.hashes, dependencyIndices: document.changes.lazy.map(\.dependencies))
        if verifyHeads {
            let stored = document.heads.sorted()
            guard result.heads == stored else { throw .headsMismatch(stored: stored, computed: result.heads) }
        }
        return result
    }

    /// The hashes of the changes no other change depends on, sorted, where
    /// `dependencyIndices` gives each change's dependencies as indices of
    /// earlier changes: found by marking, without hashing every change. (A
    /// change listed twice would count as two here; such a document fails
    /// its load anyway, on the repeated sequence number.)
    private static func heads(of hashes: [ChangeHash], dependencyIndices: some Sequence<ArraySlice<Int>>) -> [ChangeHash] {
        var dependedOn = [Bool](repeating: false, count: hashes.count)
        for dependencies in dependencyIndices {
            for index in dependencies { dependedOn[index] = true }
        }
        return hashes.indices.filter { !dependedOn[$0] }.map { hashes[$0] }.sorted()
    }
}

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
    /// they were decoded from.
    private static func reconstruct(
        _ document: StoredDocument, ops: UnsafeBufferPointer<StoredOpRows.Row>, groupIds: UnsafeBufferPointer<StoredOpId>,
        valueBytes: UnsafeBufferPointer<UInt8>, verifyHeads: Bool, statistics: inout OpIdTable.Statistics
    ) throws(LoadError) -> ReconstructedChanges {
        let actorCount = document.actors.count
        try DocumentChangeColumns.validateGraph(document.changes, actorCount: actorCount)
        // Successor and predecessor positions are kept in 32 bits.
        guard groupIds.count < Int(Int32.max) else { throw .tooManyRows(column: "successors", limit: Int(Int32.max) - 1) }

        // Ids of stored ops, laid out in runs where each actor's ids are dense.
        var ranges = OpIdRanges()
        for row in ops.indices {
            guard let id = ops[row].id else { throw .missingColumn(column: "id") }
            ranges.note(OpId(id))
        }
        var rowOfId = OpIdTable()
        rowOfId.reserve(ranges, entries: ops.count)
        for row in ops.indices where !rowOfId.insertIfAbsent(OpId(ops[row].id!), Int32(row)) {
            throw .duplicateOpId(row: row)
        }
        // Every row has an id from here on.
        func id(_ row: Int) -> StoredOpId { StoredOpId(counter: UInt64(ops[row].idCounter), actor: Int(ops[row].idActor)) }

        // 1 and 2: predecessors, and deletes for successors that are not stored.
        // Every successor resolves to a stored row (>= 0) or a delete (-1 - index);
        // the predecessor lists are then laid out flat (one array, an offset per
        // row): a document has an op per character, and an array per op was
        // most of the cost of a load.
        var deletes = [Delete]()
        // Deletes are ids of the same actors in the same ranges: dense too
        // where the ops are, within a budget of the successors that may be deletes.
        var deleteOfId = OpIdTable()
        deleteOfId.reserve(ranges, entries: groupIds.count)
        var resolved = [Int32]()
        resolved.reserveCapacity(groupIds.count)
        var predecessorCount = [Int32](repeating: 0, count: ops.count)
        do {
            for row in ops.indices {
                for successor in groupIds[ops[row].groupRange] {
                    if let target = rowOfId[OpId(successor)] {
                        predecessorCount[Int(target)] += 1
                        resolved.append(target)
                        continue
                    }
                    let key: StoredKey = ops[row].insert ? .element(id(row)) : document.ops.key(of: ops[row])
                    if let index = deleteOfId[OpId(successor)].map(Int.init) {
                        guard deletes[index].object == ops[row].object && deletes[index].key == key else {
                            throw .inconsistentDelete(row: row)
                        }
                        deletes[index].predecessorCount += 1
                        resolved.append(Int32(-1 - index))
                    } else {
                        deleteOfId[OpId(successor)] = Int32(deletes.count)
                        resolved.append(Int32(-1 - deletes.count))
                        deletes.append(Delete(id: successor, object: ops[row].object, key: key))
                    }
                }
            }
        }
        statistics = statistics + rowOfId.statistics + deleteOfId.statistics
        // The id tables are done with: free them before the predecessor lists take their place.
        rowOfId = OpIdTable()
        deleteOfId = OpIdTable()
        // Rows first, then deletes, in one flat list of predecessor ids
        // (32-bit offsets, and ids as two 32-bit fields of an OpId holding
        // the document's actor index: a load's transient memory is per op).
        var predecessorStart = [UInt32](repeating: 0, count: ops.count + deletes.count + 1)
        for row in 0..<ops.count { predecessorStart[row + 1] = predecessorStart[row] + UInt32(predecessorCount[row]) }
        predecessorCount = []
        for (index, delete) in deletes.enumerated() {
            predecessorStart[ops.count + index + 1] = predecessorStart[ops.count + index] + UInt32(delete.predecessorCount)
        }
        var predecessorIds = [OpId](repeating: .root, count: Int(predecessorStart[ops.count + deletes.count]))
        do {
            var fill = predecessorStart
            var next = 0
            for row in ops.indices {
                let id = OpId(counter: ops[row].idCounter, actor: ops[row].idActor)
                for _ in 0..<ops[row].groupCount {
                    let target = Int(resolved[next])
                    next += 1
                    let slot = target >= 0 ? target : ops.count - 1 - target
                    predecessorIds[Int(fill[slot])] = id
                    fill[slot] += 1
                }
            }
        }
        resolved = []

        // 3: assign every op to its change.
        // Each actor's changes (in seq order) laid out flat, with their max
        // ops beside them for the searches: actor a's are at
        // actorStart[a]..<actorStart[a + 1]. Metadata is read in place (a
        // copy retains its arrays).
        var actorStart = [Int](repeating: 0, count: actorCount + 1)
        var changesByActor = [Int](repeating: 0, count: document.changes.count)
        var maxOpsByActor = [UInt64](repeating: 0, count: document.changes.count)
        // (validateGraph has checked every change's actor index.)
        let maxOps = document.changes.withUnsafeBufferPointer { changes -> [UInt64] in
            for index in changes.indices { actorStart[changes[index].actor + 1] += 1 }
            for actor in 0..<actorCount { actorStart[actor + 1] += actorStart[actor] }
            var fill = actorStart
            for index in changes.indices {
                let actor = changes[index].actor
                changesByActor[fill[actor]] = index
                maxOpsByActor[fill[actor]] = changes[index].maxOp
                fill[actor] += 1
            }
            return changes.map(\.maxOp)
        }
        func change(of id: StoredOpId) -> Int? {
            guard id.actor >= 0 && id.actor < actorCount else { return nil }
            // The first change (in seq order, maxOps non-decreasing) with
            // maxOp >= counter, searched without branching on the
            // comparisons: ops come in no order of their ids, and the
            // mispredicted branches of an ordinary binary search were most
            // of this step. The answer stays in base...base + count.
            var base = actorStart[id.actor], count = actorStart[id.actor + 1] - base
            let end = base + count
            maxOpsByActor.withUnsafeBufferPointer { maxOps in
                while count > 1 {
                    let half = count >> 1
                    base = maxOps[base + half] < id.counter ? base + half : base
                    count -= half
                }
                if count == 1 && maxOps[base] < id.counter { base += 1 }
            }
            return base < end ? changesByActor[base] : nil
        }
        // Each op's change, then the ops of each change laid out flat, in
        // counter order from the change's start op.
        var changeOfRef = [Int32](repeating: 0, count: ops.count + deletes.count)
        var opCount = [Int](repeating: 0, count: document.changes.count)
        for row in ops.indices {
            guard let index = change(of: id(row)) else { throw .opOutsideChanges(row: row) }
            changeOfRef[row] = Int32(index)
            opCount[index] += 1
        }
        for (index, delete) in deletes.enumerated() {
            guard let changeIndex = change(of: delete.id) else { throw .opOutsideChanges(row: ops.count + index) }
            changeOfRef[ops.count + index] = Int32(changeIndex)
            opCount[changeIndex] += 1
        }
        var changeStart = [Int](repeating: 0, count: document.changes.count + 1)
        var startOps = [UInt64](repeating: 0, count: document.changes.count)
        for (index, meta) in document.changes.enumerated() {
            changeStart[index + 1] = changeStart[index] + opCount[index]
            guard UInt64(opCount[index]) <= meta.maxOp || opCount[index] == 0 else { throw .missingOps(change: index) }
            startOps[index] = meta.maxOp &- UInt64(opCount[index]) &+ 1
            guard startOps[index] >= 1 else { throw .startOpOutOfRange(startOps[index]) }
        }
        let unfilled = Int32.min
        // Row r as r, delete d as -1 - d.
        var orderedRefs = [Int32](repeating: unfilled, count: changeStart[document.changes.count])
        for slot in changeOfRef.indices {
            let index = Int(changeOfRef[slot])
            let counter = slot < ops.count ? UInt64(ops[slot].idCounter) : deletes[slot - ops.count].id.counter
            guard counter >= startOps[index] && counter <= maxOps[index] else { throw .missingOps(change: index) }
            let position = changeStart[index] + Int(counter - startOps[index])
            guard orderedRefs[position] == unfilled else { throw .missingOps(change: index) }
            orderedRefs[position] = slot < ops.count ? Int32(slot) : Int32(-1 - (slot - ops.count))
        }
        changeOfRef = []

        // 4: encode each change's ops, then build, encode and hash each
        // change in row order (a change's chunk holds its dependencies'
        // hashes). A long history's changes are encoded in chunks on two
        // cores, and this thread hashes each chunk as soon as it and those
        // before it are encoded (see ``InOrderPipeline``).
        let encoder = OpEncoder(
            document: document, ops: ops, valueBytes: valueBytes, deletes: deletes, predecessorIds: predecessorIds,
            predecessorStart: predecessorStart, orderedRefs: orderedRefs, changeStart: changeStart, startOps: startOps)
        let count = document.changes.count
        var result = ReconstructedChanges()
        result.reserveCapacity(count)
        // The hashes in row order, for the dependencies and the heads.
        var hashes = [ChangeHash]()
        hashes.reserveCapacity(count)
        document.changes.withUnsafeBufferPointer { metadata in
            func rebuild(_ index: Int, from encoded: EncodedChangeContents, at local: Int) {
                let hash = result.append(
                    dependencies: metadata[index].dependencies.lazy.map { hashes[$0] },
                    contentsAfterDependencies: encoded.contentsAfterDependencies(of: local),
                    startOp: startOps[index], maxOp: metadata[index].maxOp,
                    message: metadata[index].changeMessage, extraBytes: metadata[index].extraBytes)
                hashes.append(hash)
            }
            guard count >= Self.changesEncodedInParallel else {
                let all = encoder.encode(0..<count)
                for index in 0..<count { rebuild(index, from: all, at: index) }
                return
            }
            let chunkCount = min(Self.maxEncodingChunks, count / (Self.changesEncodedInParallel / 2))
            func start(of chunk: Int) -> Int { count * chunk / chunkCount }
            InOrderPipeline.run(chunkCount: chunkCount, compute: { encoder.encode(start(of: $0)..<start(of: $0 + 1)) }) {
                chunk, encoded in
                for index in start(of: chunk)..<start(of: chunk + 1) { rebuild(index, from: encoded, at: index - start(of: chunk)) }
            }
        }

        result.heads = heads(of: hashes, dependencyIndices: document.changes.lazy.map(\.dependencies))
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

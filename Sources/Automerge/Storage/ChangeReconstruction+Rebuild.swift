/// Steps 1 to 3 of ``ChangeReconstruction`` and the driving of step 4, as
/// the methods of one value holding what the steps hand each other.
///
/// The steps were one 230-line function; as methods they read one at a
/// time. The code of each is unchanged: each works on locals as before and
/// moves its results into the stored properties at its end (a move, not a
/// copy: the arrays are uniquely held), and each is `@inline(__always)`, so
/// the rebuild compiles as the one function it was.
extension ChangeReconstruction {
    struct Rebuild {
        let document: StoredDocument
        let ops: UnsafeBufferPointer<StoredOpRows.Row>
        let groupIds: UnsafeBufferPointer<StoredOpId>
        let valueBytes: UnsafeBufferPointer<UInt8>
        let actorCount: Int

        // From steps 1 and 2.
        /// The deletes, in order of first mention.
        private(set) var deletes = [Delete]()
        /// Every op's predecessors, flat (rows first, then deletes); op
        /// `slot`'s are `predecessorIds[predecessorStart[slot]..<predecessorStart[slot + 1]]`.
        private(set) var predecessorStart = [UInt32]()
        private(set) var predecessorIds = [OpId]()

        // From step 3.
        /// Each change's ops in counter order (row r as r, delete d as
        /// -1 - d), flat: change i's are at `changeStart[i]..<changeStart[i + 1]`.
        private(set) var orderedRefs = [Int32]()
        private(set) var changeStart = [Int]()
        private(set) var startOps = [UInt64]()

        // From step 4.
        /// The change hashes in row order, for the dependencies and the heads.
        private(set) var hashes = [ChangeHash]()

        /// Checks what the steps rely on: successor positions that fit in
        /// 32 bits (the change graph was checked by the decode).
        @inline(__always)
        init(
            _ document: StoredDocument, ops: UnsafeBufferPointer<StoredOpRows.Row>,
            groupIds: UnsafeBufferPointer<StoredOpId>, valueBytes: UnsafeBufferPointer<UInt8>
        ) throws(LoadError) {
            self.document = document
            self.ops = ops
            self.groupIds = groupIds
            self.valueBytes = valueBytes
            actorCount = document.actors.count
            // The change graph was checked once, by DocumentChunk.decode
            // (DocumentChangeColumns.validateGraph), which makes every stored document.
            // Successor and predecessor positions are kept in 32 bits.
            guard groupIds.count < Int(Int32.max) else { throw .tooManyRows(column: "successors", limit: Int(Int32.max) - 1) }
        }

        /// The id of a stored row (every row has one once
        /// ``storedOpIds(rowOfId:)`` has checked them).
        @inline(__always)
        private func id(_ row: Int) -> StoredOpId {
            StoredOpId(counter: UInt64(ops[row].idCounter), actor: Int(ops[row].idActor))
        }

        /// The ids of the stored ops, laid out in runs where each actor's
        /// ids are dense, and the row of each.
        @inline(__always)
        private func storedOpIds(rowOfId: inout OpIdTable) throws(LoadError) -> OpIdRanges {
            var ranges = OpIdRanges()
            for row in ops.indices {
                guard let id = ops[row].id else { throw .missingColumn(column: "id") }
                ranges.note(OpId(id))
            }
            rowOfId.reserve(ranges, entries: ops.count)
            for row in ops.indices where !rowOfId.insertIfAbsent(OpId(ops[row].id!), Int32(row)) {
                throw .duplicateOpId(row: row)
            }
            return ranges
        }

        /// Steps 1 and 2: predecessors, and deletes for successors that are
        /// not stored, adding the size and work of the id tables to `statistics`.
        ///
        /// Every successor resolves to a stored row (>= 0) or a delete (-1 -
        /// index); the predecessor lists are then laid out flat (one array,
        /// an offset per row): a document has an op per character, and an
        /// array per op was most of the cost of a load.
        @inline(__always)
        mutating func findPredecessorsAndDeletes(statistics: inout OpIdTable.Statistics) throws(LoadError) {
            var rowOfId = OpIdTable()
            let ranges = try storedOpIds(rowOfId: &rowOfId)
            let ops = self.ops, groupIds = self.groupIds, document = self.document
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
            self.deletes = deletes
            layOutPredecessors(resolved: &resolved, predecessorCount: &predecessorCount)
        }

        /// The end of step 2: the predecessor lists, rows first, then
        /// deletes, in one flat list of predecessor ids (32-bit offsets, and
        /// ids as two 32-bit fields of an OpId holding the document's actor
        /// index: a load's transient memory is per op). Frees `resolved`
        /// and `predecessorCount` as soon as they are read.
        @inline(__always)
        private mutating func layOutPredecessors(resolved: inout [Int32], predecessorCount: inout [Int32]) {
            let ops = self.ops, deletes = self.deletes
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
            self.predecessorStart = predecessorStart
            self.predecessorIds = predecessorIds
        }

        /// Step 3: assigns every op to its change, and lays out each
        /// change's ops in counter order from its start op.
        @inline(__always)
        mutating func assignOpsToChanges() throws(LoadError) {
            let ops = self.ops, deletes = self.deletes, document = self.document, actorCount = self.actorCount
            // Each actor's changes (in seq order) laid out flat, with their max
            // ops beside them for the searches: actor a's are at
            // actorStart[a]..<actorStart[a + 1]. Metadata is read in place (a
            // copy retains its arrays).
            var actorStart = [Int](repeating: 0, count: actorCount + 1)
            var changesByActor = [Int](repeating: 0, count: document.changes.count)
            var maxOpsByActor = [UInt64](repeating: 0, count: document.changes.count)
            // (The decode checked every change's actor index.)
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
            self.changeStart = changeStart
            self.startOps = startOps
            self.orderedRefs = orderedRefs
        }

        /// Builds, frames and hashes the changes of `range`, whose contents
        /// but their dependencies are `encoded`, in order.
        private static func rebuild(
            _ range: Range<Int>, from encoded: EncodedChangeContents, metadata: UnsafeBufferPointer<StoredChangeMetadata>,
            startOps: [UInt64], into result: inout ReconstructedChanges, hashes: inout [ChangeHash]
        ) {
            for index in range {
                let hash = hashes.withUnsafeBufferPointer { known in
                    result.append(
                        dependencies: metadata[index].dependencies.lazy.map { known[$0] },
                        contentsAfterDependencies: encoded.contentsAfterDependencies(of: index - range.lowerBound),
                        startOp: startOps[index], maxOp: metadata[index].maxOp,
                        message: StoredChangeMetadata.changeMessage(metadata[index].message), extraBytes: metadata[index].extraBytes)
                }
                hashes.append(hash)
            }
        }

        /// Step 4: encodes each change's ops, then builds, encodes and hashes
        /// each change in row order (a change's chunk holds its
        /// dependencies' hashes), keeping the hashes in ``hashes``.
        ///
        /// A long history's changes are encoded in chunks on two cores, and
        /// this thread hashes each chunk as soon as it and those before it
        /// are encoded (see ``InOrderPipeline``).
        @inline(__always)
        mutating func encodeAndHashChanges() -> ReconstructedChanges {
            let document = self.document, startOps = self.startOps
            let encoder = OpEncoder(
                document: document, ops: ops, valueBytes: valueBytes, deletes: deletes, predecessorIds: predecessorIds,
                predecessorStart: predecessorStart, orderedRefs: orderedRefs, changeStart: changeStart, startOps: startOps)
            let count = document.changes.count
            var result = ReconstructedChanges()
            result.reserveCapacity(count)
            var hashes = [ChangeHash]()
            hashes.reserveCapacity(count)
            document.changes.withUnsafeBufferPointer { metadata in
                // A chunk at a time through inout parameters: `result` and
                // `hashes` are captured by closures that may run on another
                // thread, so each access to them is checked at run time.
                guard count >= ChangeReconstruction.changesEncodedInParallel else {
                    Self.rebuild(0..<count, from: encoder.encode(0..<count), metadata: metadata, startOps: startOps,
                                 into: &result, hashes: &hashes)
                    return
                }
                let chunkCount = min(ChangeReconstruction.maxEncodingChunks, count / (ChangeReconstruction.changesEncodedInParallel / 2))
                func start(of chunk: Int) -> Int { count * chunk / chunkCount }
                InOrderPipeline.run(chunkCount: chunkCount, compute: { encoder.encode(start(of: $0)..<start(of: $0 + 1)) }) {
                    chunk, encoded in
                    Self.rebuild(start(of: chunk)..<start(of: chunk + 1), from: encoded, metadata: metadata, startOps: startOps,
                                 into: &result, hashes: &hashes)
                }
            }
            self.hashes = hashes
            return result
        }
    }
}

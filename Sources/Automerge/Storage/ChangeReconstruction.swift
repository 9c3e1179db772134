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

/// A change rebuilt from a document: its header and its encoding. The ops
/// go straight into the encoding; ``storedChange()`` decodes them again for
/// the rare caller that needs them as values.
struct ReconstructedChange: Sendable {
    let header: ChangeHeader
    /// The counter of the change's last op (startOp - 1 when it has none).
    let maxOp: UInt64
    let encoded: EncodedChange
    var hash: ChangeHash { encoded.hash }

    /// The change with its ops.
    func storedChange() throws(LoadError) -> StoredChange {
        try ChangeChunk.decode(try ChunkFraming.split(encoded.bytes)[0])
    }
}

enum ChangeReconstruction {
    private enum OpRef {
        case stored(Int)
        case delete(Int)
    }

    private struct Delete {
        let id: StoredOpId
        let object: StoredOpId?
        let key: StoredKey
        var predecessors: [StoredOpId]
    }

    /// Maps document actor indices to a change's own actor indices: 0 for
    /// the author, then the other actors in their bytewise order.
    private struct ChangeActors {
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
    }

    /// Rebuilds the changes of `document` in change-row order and checks that
    /// they produce the stored heads (unless `verifyHeads` is false).
    static func reconstruct(_ document: StoredDocument, verifyHeads: Bool = true) throws(LoadError) -> [ReconstructedChange] {
        let ops = document.ops
        let actorCount = document.actors.count
        try DocumentChangeColumns.validateGraph(document.changes, actorCount: actorCount)

        // Ids of stored ops.
        // Each actor's largest counter is its last change's max op (the graph check made them non-decreasing).
        var counterBounds = [UInt64](repeating: 0, count: actorCount)
        for change in document.changes { counterBounds[change.actor] = change.maxOp }
        var rowOfId = StoredOpIdTable(minimumCapacity: ops.count, counterBounds: counterBounds)
        for (row, op) in ops.enumerated() {
            guard let id = op.id else { throw .missingColumn(column: "id") }
            if !rowOfId.insert(id, row: row) { throw .duplicateOpId(row: row) }
        }

        // 1 and 2: predecessors, and deletes for successors that are not stored.
        var predecessors = [[StoredOpId]](repeating: [], count: ops.count)
        var deletes = [Delete]()
        var deleteOfId = StoredOpIdTable()
        for (row, op) in ops.enumerated() {
            let id = op.id!
            for successor in op.successors {
                if let target = rowOfId[successor] {
                    predecessors[target].append(id)
                    continue
                }
                let key: StoredKey = op.insert ? .element(id) : op.key
                if let index = deleteOfId[successor] {
                    guard deletes[index].object == op.object && deletes[index].key == key else {
                        throw .inconsistentDelete(row: row)
                    }
                    deletes[index].predecessors.append(id)
                } else {
                    deleteOfId.insert(successor, row: deletes.count)
                    deletes.append(Delete(id: successor, object: op.object, key: key, predecessors: [id]))
                }
            }
        }

        // 3: assign every op to its change.
        var changesOfActor = [[Int]](repeating: [], count: actorCount)
        for (index, change) in document.changes.enumerated() {
            guard change.actor >= 0 && change.actor < actorCount else {
                throw .actorIndexOutOfRange(column: "change actor", row: index, index: UInt64(clamping: change.actor))
            }
            changesOfActor[change.actor].append(index)
        }
        func change(of id: StoredOpId) -> Int? {
            guard id.actor >= 0 && id.actor < actorCount else { return nil }
            let candidates = changesOfActor[id.actor]
            // The first change (in seq order, maxOps non-decreasing) with maxOp >= counter.
            var low = 0, high = candidates.count
            while low < high {
                let mid = (low + high) / 2
                if document.changes[candidates[mid]].maxOp >= id.counter { high = mid } else { low = mid + 1 }
            }
            return low < candidates.count ? candidates[low] : nil
        }
        var opsOfChange = [[(counter: UInt64, ref: OpRef)]](repeating: [], count: document.changes.count)
        for (row, op) in ops.enumerated() {
            guard let index = change(of: op.id!) else { throw .opOutsideChanges(row: row) }
            opsOfChange[index].append((op.id!.counter, .stored(row)))
        }
        for (index, delete) in deletes.enumerated() {
            guard let changeIndex = change(of: delete.id) else {
                throw .opOutsideChanges(row: ops.count + index)
            }
            opsOfChange[changeIndex].append((delete.id.counter, .delete(index)))
        }

        // 4: build, encode and hash each change in row order.
        var result = [ReconstructedChange]()
        result.reserveCapacity(document.changes.count)
        // The last change (index) that mentioned each actor.
        var mentionedIn = [Int](repeating: -1, count: actorCount)
        for (index, meta) in document.changes.enumerated() {
            // The ops by counter: exactly startOp...maxOp, each once.
            let entries = opsOfChange[index]
            opsOfChange[index] = []
            guard UInt64(entries.count) <= meta.maxOp || entries.isEmpty else { throw .missingOps(change: index) }
            let startOp = meta.maxOp &- UInt64(entries.count) &+ 1
            guard startOp >= 1 else { throw .startOpOutOfRange(startOp) }
            var ordered = [OpRef?](repeating: nil, count: entries.count)
            for entry in entries {
                guard entry.counter >= startOp && entry.counter <= meta.maxOp else { throw .missingOps(change: index) }
                let slot = Int(entry.counter - startOp)
                guard ordered[slot] == nil else { throw .missingOps(change: index) }
                ordered[slot] = entry.ref
            }

            // The actors the ops mention, other than the author, sorted bytewise.
            var mentioned = [Int]()
            func note(_ id: StoredOpId?) {
                guard let id, id.actor != meta.actor, mentionedIn[id.actor] != index else { return }
                mentionedIn[id.actor] = index
                mentioned.append(id.actor)
            }
            for case let ref? in ordered {
                switch ref {
                case .stored(let row):
                    note(ops[row].object)
                    if case .element(let e) = ops[row].key { note(e) }
                    for id in predecessors[row] { note(id) }
                case .delete(let d):
                    note(deletes[d].object)
                    if case .element(let e) = deletes[d].key { note(e) }
                    for id in deletes[d].predecessors { note(id) }
                }
            }
            let others = mentioned.sorted {
                document.actors[$0].bytes.lexicographicallyPrecedes(document.actors[$1].bytes)
            }
            let map = ChangeActors(
                author: meta.actor,
                others: others.enumerated().map { (document: $0.element, change: $0.offset + 1) }.sorted { $0.document < $1.document })

            var writer = OpColumnWriter(kind: .change)
            for case let ref? in ordered {
                switch ref {
                case .stored(let row):
                    let op = ops[row]
                    writer.append(
                        object: op.object.map(map.callAsFunction), key: map.key(op.key), insert: op.insert, action: op.action,
                        value: op.value, id: nil, group: predecessors[row].lazy.map(map.callAsFunction),
                        expand: op.expand, markName: op.markName)
                case .delete(let d):
                    let delete = deletes[d]
                    writer.append(
                        object: delete.object.map(map.callAsFunction), key: map.key(delete.key), insert: false, action: 3,
                        value: .null, id: nil, group: delete.predecessors.lazy.map(map.callAsFunction),
                        expand: false, markName: nil)
                }
            }

            let header = ChangeHeader(
                dependencies: meta.dependencies.map { result[$0].hash },
                actors: [document.actors[meta.actor]] + others.map { document.actors[$0] },
                sequence: meta.sequence, startOp: startOp, time: meta.time,
                message: meta.message?.isEmpty == false ? meta.message : nil, extraBytes: meta.extraBytes)
            result.append(ReconstructedChange(
                header: header, maxOp: meta.maxOp, encoded: ChangeChunk.encode(header, opColumns: writer.finish())))
        }

        if verifyHeads {
            let computed = heads(of: result)
            let stored = document.heads.sorted()
            guard computed == stored else { throw .headsMismatch(stored: stored, computed: computed) }
        }
        return result
    }

    /// The hashes of the changes no other change depends on, sorted.
    static func heads(of changes: [ReconstructedChange]) -> [ChangeHash] {
        var heads = Set(changes.map(\.hash))
        for change in changes {
            for dep in change.header.dependencies { heads.remove(dep) }
        }
        return heads.sorted()
    }
}

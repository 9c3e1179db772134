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

/// A change rebuilt from a document, with its encoding.
struct ReconstructedChange: Sendable {
    let change: StoredChange
    let encoded: EncodedChange
    var hash: ChangeHash { encoded.hash }
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

    /// Rebuilds the changes of `document` in change-row order and checks that
    /// they produce the stored heads (unless `verifyHeads` is false).
    static func reconstruct(_ document: StoredDocument, verifyHeads: Bool = true) throws(LoadError) -> [ReconstructedChange] {
        let ops = document.ops
        let actorCount = document.actors.count
        try DocumentChangeColumns.validateGraph(document.changes, actorCount: actorCount)

        // Ids of stored ops.
        var rowOfId = [StoredOpId: Int](minimumCapacity: ops.count)
        for (row, op) in ops.enumerated() {
            guard let id = op.id else { throw .missingColumn(column: "id") }
            if rowOfId.updateValue(row, forKey: id) != nil { throw .duplicateOpId(row: row) }
        }

        // 1 and 2: predecessors, and deletes for successors that are not stored.
        var predecessors = [[StoredOpId]](repeating: [], count: ops.count)
        var deletes = [Delete]()
        var deleteOfId = [StoredOpId: Int]()
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
                    deleteOfId[successor] = deletes.count
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
        var changeActorOf = [Int](repeating: -1, count: actorCount)
        for (index, meta) in document.changes.enumerated() {
            var entries = opsOfChange[index]
            opsOfChange[index] = []
            entries.sort { $0.counter < $1.counter }
            if let first = entries.first {
                for (offset, entry) in entries.enumerated() where entry.counter != first.counter &+ UInt64(offset) {
                    throw .missingOps(change: index)
                }
                guard entries.last!.counter == meta.maxOp else { throw .missingOps(change: index) }
            }
            let startOp = entries.first?.counter ?? meta.maxOp &+ 1
            guard startOp >= 1 else { throw .startOpOutOfRange(startOp) }

            // The actors the ops mention, other than the author, sorted bytewise.
            var mentioned = Set<Int>()
            func note(_ id: StoredOpId?) { if let id, id.actor != meta.actor { mentioned.insert(id.actor) } }
            for entry in entries {
                switch entry.ref {
                case .stored(let row):
                    let op = ops[row]
                    note(op.object)
                    if case .element(let e) = op.key { note(e) }
                    predecessors[row].forEach(note)
                case .delete(let d):
                    note(deletes[d].object)
                    if case .element(let e) = deletes[d].key { note(e) }
                    deletes[d].predecessors.forEach(note)
                }
            }
            let others = mentioned.sorted {
                document.actors[$0].bytes.lexicographicallyPrecedes(document.actors[$1].bytes)
            }
            changeActorOf[meta.actor] = 0
            for (offset, actor) in others.enumerated() { changeActorOf[actor] = offset + 1 }
            func map(_ id: StoredOpId) -> StoredOpId { StoredOpId(counter: id.counter, actor: changeActorOf[id.actor]) }
            func mapKey(_ key: StoredKey) -> StoredKey {
                if case .element(let e?) = key { return .element(map(e)) }
                return key
            }

            var changeOps = [StoredOp]()
            changeOps.reserveCapacity(entries.count)
            for entry in entries {
                switch entry.ref {
                case .stored(let row):
                    let op = ops[row]
                    changeOps.append(StoredOp(
                        object: op.object.map(map), key: mapKey(op.key), insert: op.insert, action: op.action,
                        value: op.value, predecessors: predecessors[row].map(map), id: nil, successors: [],
                        expand: op.expand, markName: op.markName))
                case .delete(let d):
                    let delete = deletes[d]
                    changeOps.append(StoredOp(
                        object: delete.object.map(map), key: mapKey(delete.key), insert: false, action: 3,
                        value: .null, predecessors: delete.predecessors.map(map), id: nil, successors: [],
                        expand: false, markName: nil))
                }
            }
            changeActorOf[meta.actor] = -1
            for actor in others { changeActorOf[actor] = -1 }

            let change = StoredChange(
                dependencies: meta.dependencies.map { result[$0].hash },
                actors: [document.actors[meta.actor]] + others.map { document.actors[$0] },
                sequence: meta.sequence, startOp: startOp, time: meta.time,
                message: meta.message?.isEmpty == false ? meta.message : nil,
                ops: changeOps, extraBytes: meta.extraBytes)
            result.append(ReconstructedChange(change: change, encoded: ChangeChunk.encode(change)))
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
            for dep in change.change.dependencies { heads.remove(dep) }
        }
        return heads.sorted()
    }
}

/// The document as a ``StoredDocument``, in exactly the layout Rust writes:
/// actors sorted bytewise, changes in graph order, objects by op id, map
/// keys by UTF-8 bytes, list elements in document order with each element's
/// insert op before the ops that update it, successors by op id.
extension DocumentState {
    func storedDocument() -> StoredDocument {
        let authors = Set(history.records.map(\.actor))
        let sortedAuthors = authors.sorted { ops.actors[$0] < ops.actors[$1] }
        var docIndex: [UInt32: Int] = [:]
        for (position, actor) in sortedAuthors.enumerated() { docIndex[actor] = position }
        func stored(_ id: OpId) -> StoredOpId { StoredOpId(counter: UInt64(id.counter), actor: docIndex[id.actor] ?? 0) }
        func storedObject(_ id: OpId) -> StoredOpId? { id.isRoot ? nil : stored(id) }

        let changes = history.records.map { record in
            StoredChangeMetadata(actor: docIndex[record.actor] ?? 0, sequence: record.sequence, maxOp: record.maxOp,
                                 time: record.time, message: record.message,
                                 dependencies: record.dependencyIndices, extraBytes: record.extraBytes)
        }

        var storedOps: [StoredOp] = []
        func append(_ op: Op, object: OpId, key: StoredKey) {
            storedOps.append(StoredOp(
                object: storedObject(object), key: key, insert: op.insert, action: UInt64(op.action.rawValue),
                value: op.value, predecessors: [], id: stored(op.id),
                successors: op.successors.map { stored($0.id) }, expand: op.expand, markName: op.markName))
        }
        let objectIds = ops.objectIds.sorted { ops.actors.precedes($0, $1) }
        for id in objectIds {
            guard let object = ops.object(id) else { continue }
            if object.kind.isSequence {
                object.sequence.forEach { element in
                    let reference: OpId
                    if case .element(let key) = element.insertOp.key { reference = key } else { reference = .root }
                    append(element.insertOp, object: id, key: .element(reference.isRoot ? nil : stored(reference)))
                    for update in element.updates { append(update, object: id, key: .element(stored(element.id))) }
                    return true
                }
            } else {
                for key in object.entries.keys.sorted() {
                    for op in object.entries[key]! { append(op, object: id, key: .map(key.string)) }
                }
            }
        }
        let heads = history.heads.sorted()
        return StoredDocument(
            actors: sortedAuthors.map { ops.actors[$0] }, heads: heads, changes: changes, ops: storedOps,
            headsIndex: heads.compactMap { history.index(of: $0) })
    }
}

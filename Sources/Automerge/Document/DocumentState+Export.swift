/// The document as a document chunk, in exactly the layout Rust writes:
/// actors sorted bytewise, changes in graph order, objects by op id, map
/// keys by UTF-8 bytes, list elements in document order with each element's
/// insert op before the ops that update it, successors by op id.
///
/// Op rows stream from the op set into an ``OpColumnWriter``: saving never
/// builds a ``StoredOp`` per op. A large document's columns are written by
/// two writers on two cores, each walking all the ops: one the op-id
/// columns, the other the values (see ``OpColumnWriter/Part``); the bytes
/// are the same as one writer's. Each part's columns are deflated as soon
/// as it is done, on both cores once both are (``Deflate/Queue``).
extension DocumentState {
    /// From about this many ops, walking the ops twice on two cores beats
    /// walking them once (a save of 20,000 ops takes about 2 ms).
    static let concurrentSaveThreshold: UInt64 = 20_000

    func documentChunk(compress: Bool) -> [UInt8] {
        // Only authors of changes are in a document's actor table; op-set
        // actor index -> position in that table.
        var isAuthor = [Bool](repeating: false, count: ops.actors.count)
        for record in history.records { isAuthor[Int(record.actor)] = true }
        let sortedAuthors = (0..<UInt32(ops.actors.count)).filter { isAuthor[Int($0)] }
            .sorted { ops.actors[$0] < ops.actors[$1] }
        var docIndex = [Int](repeating: 0, count: ops.actors.count)
        for (position, actor) in sortedAuthors.enumerated() { docIndex[Int(actor)] = position }

        let changes = history.records.map { [docIndex] record in
            StoredChangeMetadata(actor: docIndex[Int(record.actor)], sequence: record.sequence, maxOp: record.maxOp,
                                 time: record.time, message: record.message,
                                 dependencies: record.dependencyIndices, extraBytes: record.extraBytes)
        }

        // The change columns are submitted to the deflate queue first, so
        // that whichever op-column part is encoded first starts on them.
        let concurrent = ops.maxOp >= Self.concurrentSaveThreshold
        let queue = compress ? Deflate.Queue(producers: concurrent ? 2 : 0) : nil
        let changeColumns = DeflatingColumns(DocumentChangeColumns.encode(changes), on: queue)
        let opColumns: [(spec: ColumnSpec, bytes: [UInt8])]
        if concurrent {
            func encodeAndDeflate(_ part: OpColumnWriter.Part) -> DeflatingColumns {
                let columns = DeflatingColumns(encodeOpColumns(docIndex: docIndex, part: part), on: queue)
                queue?.finishProducing()
                return columns
            }
            let (opIds, values) = Concurrently.run({ encodeAndDeflate(.opIds) }, { encodeAndDeflate(.values) })
            opColumns = (opIds.finished() + values.finished()).sorted { $0.spec.normalized < $1.spec.normalized }
        } else {
            let columns = DeflatingColumns(encodeOpColumns(docIndex: docIndex, part: .all), on: queue)
            queue?.drain()
            opColumns = columns.finished()
        }
        let heads = history.heads.sorted()
        return DocumentChunk.encode(
            actors: sortedAuthors.map { ops.actors[$0] }, heads: heads, changeColumns: changeColumns.finished(),
            opColumns: opColumns, headsIndex: heads.compactMap { history.index(of: $0) })
    }

    /// The op columns of the document, or of one part of them: every op in
    /// document order.
    private func encodeOpColumns(docIndex: [Int], part: OpColumnWriter.Part) -> [(ColumnSpec, [UInt8])] {
        var rows = OpRowExporter(docIndex: docIndex, writer: OpColumnWriter(kind: .document, part: part))
        for id in ops.objectIds.sorted(by: { ops.actors.precedes($0, $1) }) {
            guard let object = ops.object(id) else { continue }
            let storedObject = id.isRoot ? nil : rows.stored(id)
            if object.kind.isSequence {
                object.sequence.forEachInsert { element, reference in
                    rows.appendInsert(element, object: storedObject,
                                      key: .element(reference.isRoot ? nil : rows.stored(reference)))
                    if !element.pointee.updates.isEmpty {
                        let key = StoredKey.element(rows.stored(element.pointee.id))
                        for update in element.pointee.updates { rows.append(update, object: storedObject, key: key) }
                    }
                }
            } else {
                for key in object.entries.keys.sorted() {
                    let storedKey = StoredKey.map(key.string)
                    for op in object.entries[key]! { rows.append(op, object: storedObject, key: storedKey) }
                }
            }
        }
        return rows.writer.finish()
    }
}

/// Writes op-set ops as document op rows, with actor indices mapped to the
/// document's actor table.
private struct OpRowExporter {
    /// Op-set actor index -> position in the document's actor table.
    let docIndex: [Int]
    var writer: OpColumnWriter

    func stored(_ id: OpId) -> StoredOpId { StoredOpId(counter: UInt64(id.counter), actor: docIndex[Int(id.actor)]) }

    mutating func append(_ op: Op, object: StoredOpId?, key: StoredKey) {
        if writer.part.writesOpIds {
            appendOpIds(id: op.id, insert: op.insert, action: op.action, successors: op.successors, object: object, key: key)
        }
        if writer.part.writesValues { writer.appendValues(value: op.value, expand: op.expand, markName: op.markName) }
    }

    /// Appends a sequence element's insert op from its fields, read in
    /// place (neither the element nor an ``Op`` is copied), and only those
    /// of the writer's part (an op-id writer copied every value for nothing).
    mutating func appendInsert(_ element: UnsafePointer<SequenceElement>, object: StoredOpId?, key: StoredKey) {
        if writer.part.writesOpIds {
            // The successors are read through the pointer: handing them to
            // a function copied (retained) them for every element.
            writer.appendOpIds(object: object, key: key, insert: true, action: UInt64(element.pointee.action.rawValue),
                               id: stored(element.pointee.id), groupCount: element.pointee.successors.count)
            element.pointee.successors.forEachId { writer.appendGroupMember(stored($0)) }
        }
        if writer.part.writesValues {
            writer.appendValues(value: element.pointee.value, expand: element.pointee.expand, markName: element.pointee.markName)
        }
    }

    private mutating func appendOpIds(id: OpId, insert: Bool, action: OpAction, successors: SuccessorList,
                                      object: StoredOpId?, key: StoredKey) {
        writer.appendOpIds(object: object, key: key, insert: insert, action: UInt64(action.rawValue), id: stored(id),
                           groupCount: successors.count)
        successors.forEachId { writer.appendGroupMember(stored($0)) }
    }
}

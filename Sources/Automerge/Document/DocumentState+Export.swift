/// The document as a document chunk, in exactly the layout Rust writes:
/// actors sorted bytewise, changes in graph order, objects by op id, map
/// keys by UTF-8 bytes, list elements in document order with each element's
/// insert op before the ops that update it, successors by op id.
///
/// Op rows stream from the op set into an ``OpColumnWriter``: saving never
/// builds a ``StoredOp`` per op. A long history of small changes encodes
/// its change columns on one core and its rows on the other; any other
/// large document's rows are cut in two
/// halves (``RowCut``) encoded on two cores, every column of each, and the
/// second half's columns are joined to the first's
/// (``OpColumnWriter/append(contentsOf:)``): the bytes are one writer's,
/// and each element is read once. (Splitting by columns instead, each core
/// walking every row for half the columns, read every element twice; a
/// just-edited document's elements, scattered over the heap, made both
/// walks wait on memory.) The columns are then deflated on both cores.
extension DocumentState {
    /// From about this many ops, encoding two halves of the rows on two
    /// cores beats one walk (below it, a save is too short to split).
    static let concurrentSaveThreshold: UInt64 = 20_000
    /// From this many changes (and a change for every four ops or fewer),
    /// a save encodes its change columns on one core and its op rows on
    /// the other, rather than two halves of the rows.
    static let concurrentChangeColumnsThreshold = 20_000

    /// The document chunk, its long columns deflated with `effort` (none when nil).
    func documentChunk(deflating effort: DeflateEffort?) -> [UInt8] {
        // Only authors of changes are in a document's actor table; op-set
        // actor index -> position in that table.
        var isAuthor = [Bool](repeating: false, count: ops.actors.count)
        for record in history.records { isAuthor[Int(record.actor)] = true }
        let sortedAuthors = (0..<UInt32(ops.actors.count)).filter { isAuthor[Int($0)] }
            .sorted { ops.actors[$0] < ops.actors[$1] }
        var docIndex = [Int](repeating: 0, count: ops.actors.count)
        for (position, actor) in sortedAuthors.enumerated() { docIndex[Int(actor)] = position }

        func encodeChangeColumns() -> [(ColumnSpec, [UInt8])] {
            var columns = DocumentChangeColumns.Writer()
            for record in history.records {
                columns.append(actor: docIndex[Int(record.actor)], sequence: record.sequence, maxOp: record.maxOp,
                               time: record.time, message: history.message(of: record),
                               dependencies: history.dependencyIndices(of: record), extraBytes: history.extraBytes(of: record))
            }
            return columns.finish()
        }
        let objects = ops.objectIds.sorted(by: { ops.actors.precedes($0, $1) })
        let encodedChanges: [(ColumnSpec, [UInt8])]
        var writer: OpColumnWriter
        if history.count >= Self.concurrentChangeColumnsThreshold && UInt64(history.count) * 4 >= ops.maxOp {
            // A history of few ops a change: its change columns take as
            // long as its op rows (a change's metadata costs about two ops'
            // rows), so one core each.
            (encodedChanges, writer) = Concurrently.run(
                encodeChangeColumns, { encodeOpRows(of: objects, docIndex: docIndex, half: .all) })
        } else {
            encodedChanges = encodeChangeColumns()
            if ops.maxOp >= Self.concurrentSaveThreshold {
                let cut = RowCut.halving(objects, of: ops)
                var second: OpColumnWriter
                (writer, second) = Concurrently.run(
                    { encodeOpRows(of: objects, docIndex: docIndex, half: .beforeCut(cut)) },
                    { encodeOpRows(of: objects, docIndex: docIndex, half: .fromCut(cut)) })
                writer.append(contentsOf: second)
            } else {
                writer = encodeOpRows(of: objects, docIndex: docIndex, half: .all)
            }
        }
        let queue = effort == nil ? nil : Deflate.Queue()
        let changeColumns = DeflatingColumns(encodedChanges, on: queue, effort: effort ?? .fast)
        let opColumns = DeflatingColumns(writer.finish(), on: queue, effort: effort ?? .fast)
        queue?.drain()
        let heads = history.heads.sorted()
        return DocumentChunk.encode(
            actors: sortedAuthors.map { ops.actors[$0] }, heads: heads, changeColumns: changeColumns.finished(),
            opColumns: opColumns.finished(), headsIndex: heads.compactMap { history.index(of: $0) })
    }

    /// The op rows of `objects` (sorted as a document stores them), or of
    /// one half of them.
    private func encodeOpRows(of objects: [OpId], docIndex: [Int], half: RowCut.Half) -> OpColumnWriter {
        var rows = OpRowExporter(docIndex: docIndex, writer: OpColumnWriter(kind: .document))
        for (position, id) in objects.enumerated() {
            guard let span = half.span(ofObjectAt: position) else { continue }
            guard let object = ops.object(id) else { continue }
            let storedObject = id.isRoot ? nil : rows.stored(id)
            if object.kind.isSequence {
                ops.sequence(of: object).forEachInsert(from: span.fromLeaf, until: span.untilLeaf, packed: { leaf in
                    rows.appendInserts(of: leaf, object: storedObject)
                }) { element, reference in
                    rows.appendInsert(element, object: storedObject,
                                      key: .element(reference.isRoot ? nil : rows.stored(reference)))
                    if !element.pointee.updates.isEmpty {
                        let key = StoredKey.element(rows.stored(element.pointee.id))
                        for update in element.pointee.updates { rows.append(update, object: storedObject, key: key) }
                    }
                }
            } else {
                let entries = ops.entries(of: object)
                let keys = span.sortedKeys ?? entries.keys.sorted()
                for key in keys[span.keys.clamped(to: keys.indices)] {
                    let storedKey = StoredKey.map(key.string)
                    for op in entries[key]! { rows.append(op, object: storedObject, key: storedKey) }
                }
            }
        }
        return rows.writer
    }
}

/// Where a save cuts a document's op rows in two halves of about the same
/// size: inside the object holding the middle row, at a leaf of a sequence
/// or at a key of a map (an element or a key counted as one row).
private struct RowCut {
    /// The object's position among the sorted objects (their count: no cut).
    let object: Int
    /// A sequence's first leaf of the second half (-1: none of it).
    let leaf: Int32
    /// A map's sorted keys (sorted once for both halves) and the position
    /// of the second half's first key.
    let sortedKeys: [MapKey]?
    let key: Int

    static func halving(_ objects: [OpId], of ops: OpSet) -> RowCut {
        func rows(_ object: ObjectState) -> Int {
            object.kind.isSequence ? ops.sequence(of: object).elementCount : ops.entries(of: object).count
        }
        let total = objects.reduce(0) { $0 + (ops.object($1).map(rows) ?? 0) }
        var before = 0
        for (position, id) in objects.enumerated() {
            guard let object = ops.object(id) else { continue }
            let count = rows(object)
            if before + count > total / 2 {
                let offset = total / 2 - before
                if object.kind.isSequence {
                    return RowCut(object: position, leaf: ops.sequence(of: object).leaf(atElementOffset: offset), sortedKeys: nil, key: 0)
                }
                return RowCut(object: position, leaf: -1, sortedKeys: ops.entries(of: object).keys.sorted(), key: offset)
            }
            before += count
        }
        return RowCut(object: objects.count, leaf: -1, sortedKeys: nil, key: 0)
    }

    /// Which rows one walk writes.
    enum Half {
        case all
        case beforeCut(RowCut)
        case fromCut(RowCut)

        /// What a walk writes of one object: its leaves `fromLeaf..<untilLeaf`
        /// (nil: from the first, to the end) or its keys at `keys` in
        /// sorted order; nil if none of it.
        struct Span {
            var fromLeaf: Int32? = nil
            var untilLeaf: Int32? = nil
            var keys = 0..<Int.max
            var sortedKeys: [MapKey]? = nil
        }

        func span(ofObjectAt position: Int) -> Span? {
            switch self {
            case .all:
                return Span()
            case .beforeCut(let cut):
                if position != cut.object { return position < cut.object ? Span() : nil }
                return Span(untilLeaf: cut.leaf, keys: 0..<cut.key, sortedKeys: cut.sortedKeys)
            case .fromCut(let cut):
                if position != cut.object { return position > cut.object ? Span() : nil }
                return Span(fromLeaf: cut.leaf, keys: cut.key..<Int.max, sortedKeys: cut.sortedKeys)
            }
        }
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
        writer.appendOpIds(object: object, key: key, insert: op.insert, action: UInt64(op.action.rawValue), id: stored(op.id),
                           groupCount: op.successors.count)
        op.successors.forEachId { writer.appendGroupMember(stored($0)) }
        writer.appendValues(value: op.value, expand: op.expand, markName: op.markName)
    }

    /// Appends the insert ops of a packed leaf's elements from its bytes:
    /// a typed character's value is written as the UTF-8 the leaf holds,
    /// with no element or String made (decoding them made a save of a
    /// loaded document 40% slower).
    mutating func appendInserts(of leaf: PackedLeaf, object: StoredOpId?) {
        leaf.forEachEntry { entry, bytes in
            writer.appendOpIds(object: object, key: .element(entry.reference.isRoot ? nil : stored(entry.reference)), insert: true,
                               action: UInt64(OpAction.set.rawValue), id: stored(entry.id),
                               groupCount: entry.deletedBy == nil ? 0 : 1)
            if let deletedBy = entry.deletedBy { writer.appendGroupMember(stored(deletedBy)) }
            if let scalar = PackedValue.scalarUTF8(bytes, at: entry.value) {
                writer.appendValues(rawValue: (UInt8(ValueColumn.TypeCode.string), scalar), expand: false, markName: nil)
            } else {
                var cursor = entry.value
                writer.appendValues(value: PackedValue.read(bytes, at: &cursor), expand: false, markName: nil)
            }
            return true
        }
    }

    /// Appends a sequence element's insert op from its fields, read in
    /// place: neither the element nor an ``Op`` is copied, and the
    /// successors and the value are read through the pointer (handing them
    /// to a function copied them, a retain and release per element).
    mutating func appendInsert(_ element: UnsafePointer<SequenceElement>, object: StoredOpId?, key: StoredKey) {
        writer.appendOpIds(object: object, key: key, insert: true, action: UInt64(element.pointee.action.rawValue),
                           id: stored(element.pointee.id), groupCount: element.pointee.successors.count)
        element.pointee.successors.forEachId { writer.appendGroupMember(stored($0)) }
        writer.appendValues(value: element.pointee.value, expand: element.pointee.expand, markName: element.pointee.markName)
    }
}

/// Step 4 of ``ChangeReconstruction``, its first half: each change's
/// contents but its dependencies (its ops encoded as change op columns,
/// the actors they mention, its metadata). None of it depends on the change
/// hashes (only the dependencies do), so a long history encodes its two
/// halves on two cores; the dependencies and hashes then follow in row
/// order.
extension ChangeReconstruction {
    /// A run of changes encoded but for their dependencies: for change `i`
    /// of the run, its contents after the dependencies (see
    /// ``ChangeChunk/appendContentsAfterDependencies(author:sequence:startOp:time:message:otherActors:extraBytes:to:writeOpColumns:)``)
    /// are `contents[contentsStart[i]..<contentsStart[i + 1]]`.
    struct EncodedChangeContents {
        var contentsStart = [0]
        var contents: [UInt8] = []

        func contentsAfterDependencies(of change: Int) -> ArraySlice<UInt8> {
            contents[contentsStart[change]..<contentsStart[change + 1]]
        }
    }

    /// What encoding a change's ops reads, all of it fixed by steps 1 to 3.
    struct OpEncoder {
        let document: StoredDocument
        let ops: UnsafeBufferPointer<StoredOpRows.Row>
        let valueBytes: UnsafeBufferPointer<UInt8>
        let deletes: [Delete]
        /// Every op's predecessors, flat; op `slot`'s are `predecessorStart[slot]..<predecessorStart[slot + 1]`
        /// (stored rows first, then deletes).
        let predecessorIds: [OpId]
        let predecessorStart: [UInt32]
        /// Each change's ops in counter order (row r as r, delete d as -1 - d), flat by `changeStart`.
        let orderedRefs: [Int32]
        let changeStart: [Int]
        let startOps: [UInt64]

        private func refs(of change: Int) -> LazyMapSequence<ArraySlice<Int32>, OpRef> {
            orderedRefs[changeStart[change]..<changeStart[change + 1]].lazy.map { ref in
                ref >= 0 ? .stored(Int(ref)) : .delete(Int(-1 - ref))
            }
        }

        private func predecessorRange(of ref: OpRef) -> Range<Int> {
            let slot: Int
            switch ref {
            case .stored(let row): slot = row
            case .delete(let index): slot = ops.count + index
            }
            return Int(predecessorStart[slot])..<Int(predecessorStart[slot + 1])
        }

        /// Encodes the changes of `range` (one writer and one set of buffers
        /// for all of them, see ``OpColumnWriter/finish(layout:)``).
        func encode(_ range: Range<Int>) -> EncodedChangeContents {
            let actors = document.actors, actorCount = actors.count
            var result = EncodedChangeContents()
            result.contentsStart.reserveCapacity(range.count + 1)
            var writer = OpColumnWriter(kind: .change)
            var layout = [(spec: ColumnSpec, length: Int)]()
            // The last change (index) that mentioned each actor.
            var mentionedIn = [Int](repeating: -1, count: actorCount)
            var mentioned = [Int]()
            var byDocumentIndex: [(document: Int, change: Int)] = []
            for index in range {
                let author = document.changes[index].actor
                mentioned.removeAll(keepingCapacity: true)
                func note(_ id: StoredOpId?) {
                    guard let id, id.actor != author, mentionedIn[id.actor] != index else { return }
                    mentionedIn[id.actor] = index
                    mentioned.append(id.actor)
                }
                // With one actor in the document there is nobody else to mention.
                for ref in refs(of: index) where actorCount > 1 {
                    switch ref {
                    case .stored(let row):
                        note(ops[row].object)
                        if !ops[row].isMapKey { note(ops[row].element) }
                    case .delete(let d):
                        note(deletes[d].object)
                        if case .element(let e) = deletes[d].key { note(e) }
                    }
                    for member in predecessorRange(of: ref) { note(StoredOpId(predecessorIds[member])) }
                }
                if mentioned.count > 1 { mentioned.sort { actors[$0].bytes.lexicographicallyPrecedes(actors[$1].bytes) } }
                // Refilled change after change, as `mentioned` is, rather than mapped anew.
                byDocumentIndex.removeAll(keepingCapacity: true)
                for (offset, actor) in mentioned.enumerated() { byDocumentIndex.append((document: actor, change: offset + 1)) }
                if byDocumentIndex.count > 1 { byDocumentIndex.sort { $0.document < $1.document } }
                append(ops: refs(of: index), to: &writer, actors: ChangeActors(author: author, others: byDocumentIndex))

                layout.removeAll(keepingCapacity: true)
                writer.finish(layout: &layout)
                document.changes.withUnsafeBufferPointer { metadata in
                    ChangeChunk.appendContentsAfterDependencies(
                        author: actors[author].bytes, sequence: metadata[index].sequence, startOp: startOps[index],
                        time: metadata[index].time, message: StoredChangeMetadata.changeMessage(metadata[index].message),
                        otherActors: mentioned.lazy.map { actors[$0].bytes }, extraBytes: metadata[index].extraBytes,
                        to: &result.contents
                    ) { contents in
                        ColumnLayout.write(layout, to: &contents)
                        writer.appendFinishedColumns(to: &contents)
                    }
                }
                result.contentsStart.append(result.contents.count)
            }
            return result
        }

        /// Appends a change's ops, each followed by its predecessors one by
        /// one (an array slice and a lazy map per row retained and released
        /// the id list and the actor map).
        private func append(ops refs: LazyMapSequence<ArraySlice<Int32>, OpRef>, to writer: inout OpColumnWriter,
                            actors map: ChangeActors) {
            predecessorIds.withUnsafeBufferPointer { predecessorIds in
                for ref in refs {
                    let predecessors = predecessorRange(of: ref)
                    switch ref {
                    case .stored(let row):
                        let op = ops[row]
                        writer.append(
                            object: op.object.map(map.callAsFunction), key: map.key(of: op, in: document.ops),
                            insert: op.insert, action: UInt64(op.action),
                            rawValue: (op.valueType, UnsafeBufferPointer(rebasing: valueBytes[op.valueRange])),
                            id: nil, groupCount: predecessors.count, expand: op.expand,
                            markName: op.markName == 0 ? nil : document.ops.markName(of: op))
                    case .delete(let d):
                        writer.append(
                            object: deletes[d].object.map(map.callAsFunction), key: map.key(deletes[d].key), insert: false,
                            action: UInt64(OpAction.delete.rawValue), value: .null, id: nil, groupCount: predecessors.count, expand: false, markName: nil)
                    }
                    for member in predecessors { writer.appendGroupMember(map(StoredOpId(predecessorIds[member]))) }
                }
            }
        }
    }
}

extension Document {
    /// The heap bytes the document's main structures take, estimated from
    /// their counts and element sizes (allocator overhead left out), by
    /// part, for `automerge-memory-probe --breakdown`: what a document's
    /// memory is made of, where `bench memory` measures the whole.
    @_spi(Conformance)
    public func memoryBreakdown() -> [(part: String, bytes: Int)] {
        locked { state in
            var elements = 0, packed = 0, nodes = 0, index = 0, keys = 0, keyOps = 0
            for object in state.ops.objects where !object.kind.isSequence {
                keys += object.entries.count
                for key in object.entries.ops where key.count > 1 { keyOps += key.count }
            }
            for object in state.ops.objects where object.kind.isSequence {
                let tree = object.sequence
                let statistics = tree.packedStatistics
                packed += statistics.bytes
                elements += (tree.elementCount - statistics.elements) * MemoryLayout<SequenceElement>.stride
                nodes += tree.nodes.count * MemoryLayout<SequenceTree.Node>.stride
                let table = tree.elementIndexStatistics
                index += table.denseSlots * 4 + table.hashed * 16 + tree.packedRuns.entries.count * MemoryLayout<PackedRunIndex.Entry>.stride
            }
            let history = state.history.byteCount
            return [
                ("objects (\(state.ops.objects.count))", state.ops.objects.count * MemoryLayout<ObjectState>.stride),
                ("map keys (\(keys)), the ops of a key with one kept inline", keys * MemoryLayout<KeyOps>.stride),
                ("map ops of keys with several (\(keyOps))", keyOps * MemoryLayout<Op>.stride),
                ("sequence elements, unpacked", elements),
                ("sequence leaves, packed", packed),
                ("sequence tree nodes", nodes),
                ("sequence element indexes", index),
                ("change records (\(state.history.count)) with their bytes", history),
            ]
        }
    }
}

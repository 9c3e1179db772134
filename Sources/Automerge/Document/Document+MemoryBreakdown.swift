extension Document {
    /// A cheap estimate of the heap bytes the document holds (its history,
    /// its actors, and about 48 bytes per op ever made), in constant time,
    /// for caches that bound the documents they keep by memory. An
    /// estimate: ``memoryBreakdown()`` counts, at a cost linear in the document.
    @_spi(Storage)
    public var approximateMemoryFootprint: Int {
        locked { state in
            // Ops by their count, not by the highest counter: concurrent
            // changes of many actors share their counters.
            let ops = max(state.history.opCount, Int(clamping: state.ops.maxOp))
            return state.history.byteCount + state.ops.actors.byteCount + ops * 48
        }
    }

    /// The heap bytes the document's main structures take, estimated from
    /// their counts and element sizes (allocator overhead left out), by
    /// part, for `automerge-memory-probe --breakdown`: what a document's
    /// memory is made of, where `bench memory` measures the whole.
    @_spi(Conformance)
    public func memoryBreakdown() -> [(part: String, bytes: Int)] {
        locked { state in
            var elements = 0, packed = 0, nodes = 0, index = 0, keys = 0, keyOps = 0, packedKeys = 0, packedMapBytes = 0
            for entries in state.ops.maps {
                if entries.isPacked {
                    packedKeys += entries.count
                    packedMapBytes += entries.packedByteCount
                    continue
                }
                keys += entries.count
                for (_, ops) in entries where ops.count > 1 { keyOps += ops.count }
            }
            for tree in state.ops.sequences {
                let statistics = tree.packedStatistics
                packed += statistics.bytes
                elements += (tree.elementCount - statistics.elements) * MemoryLayout<SequenceElement>.stride
                nodes += tree.nodes.count * MemoryLayout<SequenceTree.Node>.stride
                let table = tree.elementIndexStatistics
                index += table.denseSlots * 4 + table.hashed * 16 + tree.packedRuns.entries.count * MemoryLayout<PackedRunIndex.Entry>.stride
            }
            let history = state.history.byteCount
            return [
                ("objects (\(state.ops.objects.count)): \(state.ops.maps.count) maps, \(state.ops.sequences.count) sequences",
                 state.ops.objects.count * MemoryLayout<ObjectState>.stride + state.ops.maps.count * MemoryLayout<MapEntries>.stride
                    + state.ops.sequences.count * MemoryLayout<SequenceTree>.stride),
                ("map keys (\(keys)), the ops of a key with one kept inline", keys * MemoryLayout<KeyOps>.stride),
                ("map ops of keys with several (\(keyOps))", keyOps * MemoryLayout<Op>.stride),
                ("map keys packed whole with their ops (\(packedKeys))", packedMapBytes),
                ("sequence elements, unpacked", elements),
                ("sequence leaves, packed", packed),
                ("sequence tree nodes", nodes),
                ("sequence element indexes", index),
                ("change records (\(state.history.count)) with their bytes, lists by actor, heads (\(state.history.heads.count))",
                 history),
                ("actors (\(state.ops.actors.count))", state.ops.actors.byteCount),
            ]
        }
    }
}

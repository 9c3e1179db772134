extension Transaction {
    /// Hands each of its ops to `sink`, read back from `ops`, where they
    /// were applied, in order: what the commit encodes.
    func readBack(from ops: OpSet, into sink: inout some TransactionOpSink) {
        var cursor = OpSet.ReadBackCursor()
        // One array, emptied for each op, holds its predecessors: a fresh
        // one per delete was a malloc and a free each.
        var predecessors: [OpId] = []
        var counter = UInt32(startOp)
        var position = 0
        for chunk in self.ops.chunks {
            for pending in chunk {
                ops.readBack(pending, id: OpId(counter: counter, actor: actor), into: &sink,
                             known: self.predecessors[position], predecessors: &predecessors, cursor: &cursor)
                position += 1
                // Wrapping: after an op with the last counter (2^32 - 1) there is no next.
                counter &+= 1
            }
        }
    }
}

extension Transaction {
    /// Hands each of its ops to `sink`, read back from `ops`, where they
    /// were applied, in order: what the commit encodes.
    func readBack(from ops: OpSet, into sink: inout some TransactionOpSink) {
        ops.readBack(self.ops, startOp: startOp, actor: actor, knownPredecessors: predecessors, into: &sink)
    }
}

/// Converts between the op set's changes (document-wide actor indices) and
/// the file format's ``StoredChange`` (change-local actor tables).
enum ChangeCodec {
    /// Builds the stored form of a local change: the author is actor 0, the
    /// other actors the ops mention follow sorted bytewise, and predecessors
    /// are listed in op id order, as Rust writes them.
    static func storedChange(
        from ops: [ChangeOp], actor: UInt32, sequence: UInt64, startOp: UInt64,
        dependencies: [ChangeHash], time: Int64, message: String?, actors: ActorTable
    ) -> StoredChange {
        var others = Set<UInt32>()
        func note(_ id: OpId) { if !id.isRoot && id.actor != actor { others.insert(id.actor) } }
        for op in ops {
            note(op.object)
            if case .element(let element) = op.key { note(element) }
            op.predecessors.forEach(note)
        }
        let otherActors = others.sorted { actors[$0] < actors[$1] }
        var local: [UInt32: Int] = [actor: 0]
        for (offset, index) in otherActors.enumerated() { local[index] = offset + 1 }
        func stored(_ id: OpId) -> StoredOpId { StoredOpId(counter: UInt64(id.counter), actor: local[id.actor]!) }

        let storedOps = ops.map { op in
            StoredOp(
                object: op.object.isRoot ? nil : stored(op.object),
                key: {
                    switch op.key {
                    case .map(let key): return .map(key.string)
                    case .element(let element): return .element(element.isRoot ? nil : stored(element))
                    }
                }(),
                insert: op.insert,
                action: UInt64(op.action.rawValue),
                value: op.value,
                predecessors: StoredOpIdList(op.predecessors.sorted { actors.precedes($0, $1) }.lazy.map(stored)),
                id: nil, successors: [],
                expand: op.expand, markName: op.markName)
        }
        return StoredChange(
            dependencies: dependencies.sorted(), actors: [actors[actor]] + otherActors.map { actors[$0] },
            sequence: sequence, startOp: startOp, time: time,
            message: (message?.isEmpty ?? true) ? nil : message,
            ops: storedOps, extraBytes: [])
    }

    /// The op set's form of a received change, interning its actors.
    static func changeOps(of change: StoredChange, actors: inout ActorTable) throws(AutomergeError) -> (author: UInt32, ops: [ChangeOp]) {
        let indices = change.actors.map { actors.intern($0) }
        func resolve(_ id: StoredOpId) throws(AutomergeError) -> OpId {
            guard id.actor >= 0, id.actor < indices.count else { throw .invalidChange("actor index \(id.actor) out of range") }
            guard id.counter >= 1, id.counter <= maxOpCounter else { throw .invalidChange("op counter \(id.counter) out of range") }
            return OpId(counter: UInt32(id.counter), actor: indices[id.actor])
        }
        guard let author = indices.first else { throw .invalidChange("change has no author") }
        guard change.startOp >= 1, change.startOp + UInt64(change.ops.count) - 1 <= maxOpCounter || change.ops.isEmpty else {
            throw .opCounterOverflow
        }
        var result: [ChangeOp] = []
        result.reserveCapacity(change.ops.count)
        for (offset, op) in change.ops.enumerated() {
            guard let action = OpAction(rawValue: UInt8(truncatingIfNeeded: op.action)), op.action <= 7 else {
                throw .invalidChange("unknown action \(op.action)")
            }
            let key: OpKey
            switch op.key {
            case .map(let string): key = .map(MapKey(string))
            case .element(let element): key = .element(try element.map(resolve) ?? .root)
            }
            var predecessors: [OpId] = []
            for pred in op.predecessors { predecessors.append(try resolve(pred)) }
            result.append(ChangeOp(
                id: OpId(counter: UInt32(change.startOp + UInt64(offset)), actor: author),
                object: try op.object.map(resolve) ?? .root,
                key: key, insert: op.insert, action: action, value: op.value,
                predecessors: predecessors, expand: op.expand, markName: op.markName))
        }
        return (author, result)
    }
}

/// A change chunk decoded from bytes, with its hash and canonical bytes.
struct DecodedChange: Sendable {
    var stored: StoredChange
    var hash: ChangeHash
    /// The uncompressed change chunk.
    var bytes: [UInt8]
    /// Whether `bytes` are known to be exactly what a document chunk rebuilds
    /// for this change (changes read from a document chunk, and changes from
    /// a document's history), so that applying it need not check that.
    var isCanonical = false
}

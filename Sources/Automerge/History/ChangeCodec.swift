/// Converts between the op set's changes (document-wide actor indices) and
/// the file format's ``StoredChange`` (change-local actor tables).
enum ChangeCodec {
    /// A change's op rows, written one op at a time with op-set actors
    /// mapped to the change's actor table: the author is actor 0, the other
    /// actors the ops mention follow sorted bytewise, predecessors are
    /// listed in op id order, and a delete is written without value, expand
    /// flag or mark name, as Rust writes them and as a document chunk
    /// rebuilds them. Rows stream into an ``OpColumnWriter``: no
    /// ``StoredOp`` is built (for a 260,000-op commit, building them cost
    /// four times the encoding itself).
    struct RowWriter {
        private var author: UInt32 = 0
        fileprivate var actors = ActorTable()
        /// The change's actors after the author, as op-set indices.
        private var others: [UInt32] = []
        private var localActors = LocalActors(author: 0, others: [], actorCount: 0)
        fileprivate var writer = OpColumnWriter(kind: .change)
        fileprivate var count = 0

        /// `mentioned`: the op-set actors the ops mention in an object, key
        /// or predecessor.
        init(mentioning mentioned: ActorFlags, author: UInt32, actors: ActorTable) {
            restart(mentioning: mentioned, author: author, actors: actors)
        }

        /// Rows for no change yet: ``restart(mentioning:author:actors:)`` starts one.
        init() {}

        /// Starts the rows of another change, keeping the column writer's
        /// buffers (see ``finishContents(_:to:layout:)``).
        mutating func restart(mentioning mentioned: ActorFlags, author: UInt32, actors: ActorTable) {
            assert(count == 0, "rows restarted before their change was finished")
            self.author = author
            self.actors = actors
            // The buffers of the change before are refilled: a proof of each
            // change of a received batch restarts the rows once per change.
            others.removeAll(keepingCapacity: true)
            mentioned.forEachMember { if $0 != author { others.append($0) } }
            if others.count > 1 { others.sort { actors.actorPrecedes($0, $1) } }
            localActors.restart(author: author, others: others, actorCount: actors.count)
            count = 0
        }

        /// Kept apart from the writer: a call on the whole writer from its
        /// own mutating methods copied it (memcpy and retains) per op id.
        @inline(__always)
        fileprivate func stored(_ id: OpId) -> StoredOpId { localActors.stored(id) }

        /// Appends the next op's row, read in place.
        mutating func append(_ op: UnsafePointer<ChangeOp>) {
            take(id: op.pointee.id, object: op.pointee.object, key: op.pointee.key, insert: op.pointee.insert,
                 action: op.pointee.action, value: op.pointee.value, expand: op.pointee.expand,
                 markName: op.pointee.markName, predecessors: op.pointee.predecessors)
        }

        /// The change of the rows appended, as a chunk.
        mutating func finish(sequence: UInt64, startOp: UInt64, dependencies: [ChangeHash], time: Int64, message: String?,
                             extraBytes: [UInt8] = []) -> (header: ChangeHeader, maxOp: UInt64, encoded: EncodedChange) {
            let header = ChangeHeader(
                dependencies: dependencies.sorted(), actors: [actors[author]] + others.map { actors[$0] },
                sequence: sequence, startOp: startOp, time: time,
                message: (message?.isEmpty ?? true) ? nil : message, extraBytes: extraBytes)
            let maxOp = startOp + UInt64(count) - 1
            var contents = [UInt8](), layout = [(spec: ColumnSpec, length: Int)]()
            finishContents(header, to: &contents, layout: &layout)
            let (bytes, hash) = ChunkFraming.frame(type: .change, contents: contents)
            return (header, maxOp, EncodedChange(bytes: bytes, hash: hash))
        }

        /// Appends the contents of the change of the rows appended (what
        /// its chunk holds after the chunk header) to `contents`, and
        /// empties the column writer, keeping its buffers. `layout` is
        /// scratch space. A commit's chunk and the canonical-form check of
        /// a received change (``CanonicalChangeForm``) are both written here.
        /// The header's fields are written but for its actors: those are
        /// the ones the rows mention, from this writer's own table.
        mutating func finishContents(
            _ header: ChangeHeader, to contents: inout [UInt8], layout: inout [(spec: ColumnSpec, length: Int)]
        ) {
            LEB128.appendUnsigned(UInt64(header.dependencies.count), to: &contents)
            // Sorted only when they are not: a commit's already are, and a sort allocates.
            let dependencies = header.dependencies
            let ordered = zip(dependencies, dependencies.dropFirst()).allSatisfy { $0 < $1 } ? dependencies : dependencies.sorted()
            for dependency in ordered { dependency.append(to: &contents) }
            layout.removeAll(keepingCapacity: true)
            writer.finish(layout: &layout)
            let (actors, others) = (self.actors, self.others)
            ChangeChunk.appendContentsAfterDependencies(
                author: actors[author].bytes, sequence: header.sequence, startOp: header.startOp, time: header.time,
                message: header.message, otherActors: others.lazy.map { actors[$0].bytes }, extraBytes: header.extraBytes,
                to: &contents
            ) { contents in
                ColumnLayout.write(layout, to: &contents)
                writer.appendFinishedColumns(to: &contents)
            }
            count = 0
            // Let go of the actor table: a checker that keeps these rows
            // adds actors to its own between changes, which would copy a
            // table still shared (once per new actor: quadratic).
            self.actors = ActorTable()
        }
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
        // Each op is read in place: iterating a copy of each (`enumerated()`)
        // moved every op's fields twice, a quarter of a received change's check.
        try change.ops.withUnsafeBufferPointer { ops throws(AutomergeError) in
            for offset in ops.indices {
                let action = ops[offset].action
                guard action <= UInt64(OpAction.maxKnownRawValue), let opAction = OpAction(rawValue: UInt8(truncatingIfNeeded: action)) else {
                    throw .invalidChange("unknown action \(action)")
                }
                let key: OpKey
                switch ops[offset].key {
                case .map(let string): key = .map(MapKey(string))
                case .element(let element): key = .element(try element.map(resolve) ?? .root)
                }
                var predecessors: [OpId] = []
                let stored = ops[offset].predecessors
                if !stored.isEmpty {
                    predecessors.reserveCapacity(stored.count)
                    for pred in stored { predecessors.append(try resolve(pred)) }
                }
                result.append(ChangeOp(
                    id: OpId(counter: UInt32(change.startOp + UInt64(offset)), actor: author),
                    object: try ops[offset].object.map(resolve) ?? .root,
                    key: key, insert: ops[offset].insert, action: opAction, value: ops[offset].value,
                    predecessors: predecessors, expand: ops[offset].expand, markName: ops[offset].markName))
            }
        }
        return (author, result)
    }
}

/// The op-set actors a change's ops mention (objects, keys, predecessors),
/// noted op by op: the first 64 in one word (a bit per actor, far cheaper
/// per op than an array of flags), any others in an array.
/// Op-set actor indices mapped to a change's actor table: the author is
/// 0, the others follow in the order given.
struct LocalActors {
    private var author: UInt32
    /// For the first 64 op-set actors (-1 for those the change does not mention)...
    private var near: [Int]
    /// ...and for the others the change mentions: sized by the change, not
    /// by the document's actor table.
    private var distant: [UInt32: Int] = [:]

    init(author: UInt32, others: [UInt32], actorCount: Int) {
        self.author = author
        near = []
        restart(author: author, others: others, actorCount: actorCount)
    }

    /// The map of another change, in this one's buffers.
    mutating func restart(author: UInt32, others: [UInt32], actorCount: Int) {
        self.author = author
        let nearCount = min(actorCount, 64)
        if near.count == nearCount {
            for index in near.indices { near[index] = -1 }
        } else {
            near = [Int](repeating: -1, count: nearCount)
        }
        if !distant.isEmpty { distant.removeAll(keepingCapacity: true) }
        for (offset, index) in others.enumerated() {
            if index < 64 { near[Int(index)] = offset + 1 } else { distant[index] = offset + 1 }
        }
        if Int(author) < near.count { near[Int(author)] = 0 }
    }

    @inline(__always)
    func stored(_ id: OpId) -> StoredOpId {
        let actor: Int
        if id.actor == author {
            actor = 0
        } else if id.actor < 64 {
            actor = near[Int(id.actor)]
        } else {
            actor = distant[id.actor] ?? -1
        }
        return StoredOpId(counter: UInt64(id.counter), actor: actor)
    }
}

struct ActorFlags: Sendable {
    private var low: UInt64 = 0
    /// Actors from index 64 on: a set, so that a change mentioning one
    /// actor of a large table costs as little as one of a small table.
    private var high: Set<UInt32> = []

    /// Notes the actor of `id` (not the root's).
    @inline(__always)
    mutating func note(_ id: OpId) {
        guard !id.isRoot else { return }
        if id.actor < 64 {
            low |= 1 << UInt64(id.actor)
        } else {
            high.insert(id.actor)
        }
    }

    /// Notes the actors of `op`'s object, key element and predecessors.
    @inline(__always)
    mutating func note(_ op: borrowing ChangeOp) {
        note(op.object)
        if case .element(let element) = op.key { note(element) }
        if !op.predecessors.isEmpty {
            for predecessor in op.predecessors { note(predecessor) }
        }
    }

    /// Notes the actors of an op read in place, as the borrowing `note(_:)` does.
    @inline(__always)
    mutating func note(_ op: UnsafePointer<ChangeOp>) {
        note(op.pointee.object)
        if case .element(let element) = op.pointee.key { note(element) }
        if !op.pointee.predecessors.isEmpty {
            for predecessor in op.pointee.predecessors { note(predecessor) }
        }
    }

    /// Whether op-set actor `actor` was noted.
    func contains(_ actor: UInt32) -> Bool {
        actor < 64 ? low & (1 << UInt64(actor)) != 0 : high.contains(actor)
    }

    /// Calls `body` with each actor noted, in no particular order.
    func forEachMember(_ body: (UInt32) -> Void) {
        var bits = low
        while bits != 0 {
            body(UInt32(bits.trailingZeroBitCount))
            bits &= bits - 1
        }
        for actor in high { body(actor) }
    }
}

extension ChangeCodec.RowWriter: TransactionOpSink {
    /// Appends the next op's row from its fields (see ``TransactionOpSink``).
    mutating func take(id: OpId, object: OpId, key: OpKey, insert: Bool, action: OpAction, value: borrowing Primitive,
                       expand: Bool, markName: String?, predecessors: borrowing [OpId]) {
        count += 1
        let storedKey: StoredKey
        switch key {
        case .map(let name): storedKey = .map(name.string)
        case .element(let element): storedKey = .element(element.isRoot ? nil : stored(element))
        }
        let predecessorCount = predecessors.count
        writer.appendOpIds(object: object.isRoot ? nil : stored(object), key: storedKey, insert: insert,
                           action: UInt64(action.rawValue), id: nil, groupCount: predecessorCount)
        if predecessorCount == 1 {
            writer.appendGroupMember(stored(predecessors[0]))
        } else if predecessorCount > 1 {
            for predecessor in predecessors.sorted(by: actors.precedes) {
                writer.appendGroupMember(stored(predecessor))
            }
        }
        if action == .delete {
            writer.appendValues(value: .null, expand: false, markName: nil)
        } else {
            writer.appendValues(value: value, expand: expand, markName: markName)
        }
    }
}

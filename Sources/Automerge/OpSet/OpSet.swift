/// The CRDT state of a document: every object and every op, indexed for
/// reads at the current state and, by clock, at any point in history.
///
/// The op set never sees bytes; it applies ``ChangeOp``s and answers
/// queries. It is a value type: copying it (a fork) is O(1) and shares
/// storage until either copy writes.
struct OpSet: Sendable {
    var actors = ActorTable()
    /// Every object, the root first; its ops are at its ``ObjectState/body``
    /// in ``maps`` or ``sequences``.
    var objects: [ObjectState]
    /// The ops of every map and table object, by key.
    var maps: [MapEntries]
    /// The elements of every list and text object.
    var sequences: [SequenceTree] = []
    /// Positions of the objects other than the root (which is at 0) in `objects`.
    private(set) var objectPositions = OpIdTable()
    /// The size and work of every op id table: the object table's and each sequence's element index.
    var opIdTableStatistics: OpIdTable.Statistics {
        sequences.reduce(objectPositions.statistics) { $0 + $1.elementIndexStatistics }
    }
    let encoding: TextEncoding
    /// The largest op counter applied so far.
    var maxOp: UInt64 = 0

    /// The deepest an object may be nested (the root is at depth 0); deeper
    /// objects are refused, received or local. Reading a document (snapshots,
    /// patches, Codable) recurses once per level, so without a bound a small
    /// hostile file (a few bytes per nested map, less when deflated) overflows
    /// the stack. Patches need about 4 KB of stack per level in a debug build,
    /// so 256 levels stay within 1-2 MB. Found by fuzzing:
    /// Corpus/load/deep-nesting-overflows-stack.
    static let maxDepth = 256

    init(encoding: TextEncoding) {
        self.encoding = encoding
        objects = [ObjectState(id: .root, kind: .map, parent: .root, keyInParent: nil, body: 0)]
        maps = [MapEntries()]
    }

    // MARK: Objects

    /// Runs `body` on the object at `index` in place. Reading
    /// `objects[index]` (or passing it as a borrowed argument) copies the
    /// whole state, a retain and a release of every array in it: too much
    /// for one edit of one character. Read fields through `pointee`.
    func withObject<R>(at index: Int, _ body: (UnsafePointer<ObjectState>) -> R) -> R {
        precondition(objects.indices.contains(index), "object index out of range")
        return objects.withUnsafeBufferPointer { body($0.baseAddress! + index) }
    }

    func object(_ id: OpId) -> ObjectState? {
        guard let index = objectIndex(of: id) else { return nil }
        return objects[index]
    }

    func objectIndex(of id: OpId) -> Int? {
        if id.isRoot { return 0 }
        return objectPositions[id].map(Int.init)
    }

    /// The ops of the map or table `object`, a copy for reading (writes go
    /// through ``maps`` at the object's body).
    func entries(of object: ObjectState) -> MapEntries {
        precondition(!object.kind.isSequence, "not a map")
        return maps[Int(object.body)]
    }

    /// The elements of the list or text `object`, a copy for reading.
    func sequence(of object: ObjectState) -> SequenceTree {
        precondition(object.kind.isSequence, "not a sequence")
        return sequences[Int(object.body)]
    }

    /// Runs `body` on the ops of the map at `index` of the object table, in
    /// place (see ``withObject(at:_:)``).
    func withEntries<R>(ofObjectAt index: Int, _ body: (UnsafePointer<MapEntries>) -> R) -> R {
        let position = bodyPosition(ofObjectAt: index, isSequence: false)
        return maps.withUnsafeBufferPointer { maps in
            precondition(maps.indices.contains(position), "map index out of range")
            return body(maps.baseAddress! + position)
        }
    }

    /// Runs `body` on the sequence at `index` of the object table, in place.
    func withSequence<R>(ofObjectAt index: Int, _ body: (UnsafePointer<SequenceTree>) -> R) -> R {
        withSequence(atBody: bodyPosition(ofObjectAt: index, isSequence: true), body)
    }

    /// Runs `body` on the sequence at `position` of ``sequences``, in place.
    @inline(__always)
    func withSequence<R>(atBody position: Int, _ body: (UnsafePointer<SequenceTree>) -> R) -> R {
        sequences.withUnsafeBufferPointer { sequences in
            precondition(sequences.indices.contains(position), "sequence index out of range")
            return body(sequences.baseAddress! + position)
        }
    }

    /// Where the ops of the object at `index` are in ``maps`` or ``sequences``.
    @inline(__always)
    func bodyPosition(ofObjectAt index: Int, isSequence: Bool) -> Int {
        withObject(at: index) { object in
            precondition(object.pointee.kind.isSequence == isSequence, isSequence ? "not a sequence" : "not a map")
            return Int(object.pointee.body)
        }
    }

    /// Adds a new, empty object to the object table; returns its index.
    @discardableResult
    mutating func addObject(id: OpId, kind: ObjectKind, parent: OpId, keyInParent: OpKey?, depth: Int) -> Int {
        precondition(objects.count < Int(Int32.max), "object table full")
        let body: Int32
        if kind.isSequence {
            body = Int32(sequences.count)
            sequences.append(SequenceTree(width: WidthRule(isText: kind == .text, encoding: encoding)))
        } else {
            body = Int32(maps.count)
            maps.append(MapEntries())
        }
        objectPositions[id] = Int32(objects.count)
        objects.append(ObjectState(id: id, kind: kind, parent: parent, keyInParent: keyInParent, depth: depth, body: body))
        return objects.count - 1
    }

    /// Adds (or, for the root, replaces) a copy of the object at `index` of
    /// `other`, with its ops; the copy shares their storage until written.
    mutating func addObject(copying index: Int, of other: OpSet) {
        let object = other.objects[index]
        if object.id.isRoot {
            maps[0] = other.entries(of: object)
            return
        }
        let added = addObject(id: object.id, kind: object.kind, parent: object.parent, keyInParent: object.keyInParent,
                              depth: object.depth)
        if object.kind.isSequence {
            sequences[Int(objects[added].body)] = other.sequence(of: object)
        } else {
            maps[Int(objects[added].body)] = other.entries(of: object)
        }
    }

    var objectIds: [OpId] { objects.map(\.id) }

    /// Translates a public object id.
    func opId(for obj: ObjId) -> OpId? { resolve(obj)?.id }

    /// Translates a public object id and finds the object's place in the table, in one lookup.
    func resolve(_ obj: ObjId) -> (id: OpId, index: Int)? {
        if obj.isRoot { return (.root, 0) }
        // The id's hint is trusted only if this document has an object with
        // exactly that op id at that position: then it is the object, even
        // when the id came from another document (a fork or a merge peer).
        let hint = obj.hint
        if hint.index >= 0, Int(hint.index) < objects.count, Int(hint.actor) < actors.count, obj.counter <= maxOpCounter {
            let id = OpId(counter: UInt32(obj.counter), actor: hint.actor)
            if objects.withUnsafeBufferPointer({ $0[Int(hint.index)].id == id }) && actors.has(obj.actor, at: hint.actor) {
                return (id, Int(hint.index))
            }
        }
        guard obj.counter <= maxOpCounter, let actor = actors.index(of: obj.actor) else { return nil }
        let id = OpId(counter: UInt32(obj.counter), actor: actor)
        return objectIndex(of: id).map { (id, $0) }
    }

    /// The public id of the object `id`, with a hint of where it is.
    func objId(_ id: OpId) -> ObjId {
        if id.isRoot { return .ROOT }
        let hint = objectIndex(of: id).map { ObjectHint(actor: id.actor, index: Int32($0)) } ?? .none
        return ObjId(counter: UInt64(id.counter), actor: actors[id.actor], hint: hint)
    }

    // MARK: Applying ops

    enum ApplyError: Error, Equatable {
        case missingObject(OpId)
        case missingElement(OpId)
        case notASequence(OpId)
        case notAMap(OpId)
        case duplicateObject(OpId)
        case nestedTooDeep(OpId)
    }

    /// Applies one op. Ops of a change must be applied in order, and a change
    /// only after its dependencies.
    mutating func apply(_ change: ChangeOp) throws(ApplyError) {
        guard let index = objectIndex(of: change.object) else { throw .missingObject(change.object) }
        try apply(change, objectAt: index)
    }

    /// Applies one op to the object at `index` of the object table, and
    /// returns where it went (for a local op's transaction). `keyHash`: the
    /// ``MapEntries/hash(_:)`` of a map op's key, if the caller has it
    /// already. A delete of a map key that never had ops changes nothing
    /// and has no place (nil).
    @discardableResult
    mutating func apply(_ change: ChangeOp, objectAt index: Int, keyHash: UInt64? = nil) throws(ApplyError) -> PendingOp.Target? {
        precondition(objects[index].id == change.object, "op applied to the wrong object")
        // Checked before anything changes, so a refused op leaves no trace.
        if change.action.objectType != nil, objects[index].depth >= Self.maxDepth { throw .nestedTooDeep(change.id) }
        maxOp = max(maxOp, UInt64(change.id.counter))
        let successor = Successor(id: change.id, increment: change.incrementAmount)
        let kind = objects[index].kind
        let target: PendingOp.Target?
        switch change.key {
        case .map(let key):
            guard !kind.isSequence else { throw .notAMap(change.object) }
            target = applyToMap(objectAt: index, key: key, hash: keyHash ?? MapEntries.hash(key), change: change, successor: successor)
                .map { .mapKey(object: Int32(index), key: Int32($0)) }
        case .element(let element):
            guard kind.isSequence else { throw .notASequence(change.object) }
            if change.insert {
                try applyInsert(objectAt: index, after: element, change: change)
                target = .insertedElement(object: Int32(index), reference: element)
            } else {
                try applyUpdate(objectAt: index, element: element, change: change, successor: successor)
                target = .element(object: Int32(index), element: element)
            }
        }
        if let created = change.action.objectType {
            guard objectIndex(of: change.id) == nil else { throw .duplicateObject(change.id) }
            let key: OpKey = change.insert ? .element(change.id) : change.key
            addObject(id: change.id, kind: created, parent: change.object, keyInParent: key, depth: objects[index].depth + 1)
        }
        return target
    }

    /// Applies a map op; returns the position of its key, nil for a delete
    /// of a key that never had ops (which changes nothing).
    private mutating func applyToMap(objectAt index: Int, key: MapKey, hash: UInt64, change: ChangeOp, successor: Successor) -> Int? {
        // A put that overwrites nothing: the common new key, added with its
        // op in one step.
        if change.predecessors.isEmpty && change.action != .delete {
            return maps[Int(objects[index].body)].add(change.storedOp, to: key, hash: hash, actors: actors)
        }
        return maps[Int(objects[index].body)].apply(change, successor: successor, to: key, hash: hash, actors: actors)
    }

    private mutating func applyInsert(objectAt index: Int, after reference: OpId, change: ChangeOp) throws(ApplyError) {
        try insertElement(objectAt: index, after: reference, id: change.id, action: change.action, value: change.value,
                          expand: change.expand, markName: change.markName)
    }

    /// Inserts a new element (an insert op that makes no object) into the
    /// sequence at `index` of the object table.
    private mutating func insertElement(objectAt index: Int, after reference: OpId, id: OpId, action: OpAction, value: Primitive,
                                        expand: Bool, markName: String?, units: Int32? = nil) throws(ApplyError) {
        let body = Int(objects[index].body)
        guard let location = insertionLocation(in: sequences[body], after: reference, id: id) else {
            throw .missingElement(reference)
        }
        sequences[body].insert(
            SequenceElement(id: id, reference: reference, action: action, value: value, expand: expand, markName: markName,
                            successors: SuccessorList()),
            after: reference, at: location, units: units)
    }

    /// Applies a local put of a scalar to a map key unless the key has
    /// visible ops, which are returned instead (see
    /// ``MapEntries/addUnlessVisible(put:value:to:hash:actors:)``): what
    /// ``apply(_:objectAt:keyHash:)`` does for a put that overwrites
    /// nothing, without a ``ChangeOp``.
    mutating func applyLocalMapSet(objectAt index: Int, key: MapKey, hash: UInt64, put id: OpId, value: Primitive) -> MapEntries.LocalPut {
        let outcome = maps[bodyPosition(ofObjectAt: index, isSequence: false)].addUnlessVisible(put: id, value: value, to: key, hash: hash, actors: actors)
        if case .added = outcome { maxOp = max(maxOp, UInt64(id.counter)) }
        return outcome
    }

    /// Applies a local insert of a value or mark anchor (no object made)
    /// from its fields: what ``apply(_:objectAt:keyHash:)`` does for such
    /// an op, without the ``ChangeOp`` a local edit would build only to
    /// destroy it. `units`: the new
    /// element's width, if the caller has it.
    mutating func applyLocalInsert(objectAt index: Int, after reference: OpId, id: OpId, action: OpAction, value: Primitive,
                                   expand: Bool, markName: String?, units: Int32? = nil) throws(ApplyError) {
        precondition(objects[index].kind.isSequence && action.objectType == nil, "not a plain insert into a sequence")
        maxOp = max(maxOp, UInt64(id.counter))
        try insertElement(objectAt: index, after: reference, id: id, action: action, value: value, expand: expand,
                          markName: markName, units: units)
    }

    /// The visible element a local delete at a unit of a sequence would
    /// delete (see ``deleteCandidate(objectAt:coveringUnit:)``).
    struct DeleteCandidate {
        let location: SequenceTree.Location
        /// The element's id (its insert op's).
        let element: OpId
        /// The unit the element starts at, and its width.
        let start: Int
        let units: Int
        /// Whether the element's one op is its insert and nothing succeeds
        /// it: the delete's one predecessor is then the element itself, and
        /// ``applyLocalDelete(of:objectAt:id:)`` applies it.
        let isPlain: Bool
    }

    /// The visible element covering `unit` of the sequence at `index` of
    /// the object table, read in place.
    func deleteCandidate(objectAt index: Int, coveringUnit unit: Int) -> DeleteCandidate? {
        withSequence(ofObjectAt: index) { sequence in
            guard let (location, start) = sequence.pointee.element(coveringUnit: unit) else { return nil }
            return sequence.pointee.withElement(at: location) { element in
                DeleteCandidate(location: location, element: element.pointee.id, start: start, units: Int(element.pointee.units),
                                isPlain: element.pointee.updates.isEmpty && element.pointee.successors.isEmpty)
            }
        }
    }

    /// Applies a local delete `id` of a plain element found by
    /// ``deleteCandidate(objectAt:coveringUnit:)`` (nothing changed since):
    /// what ``apply(_:objectAt:keyHash:)`` does for that delete, without
    /// the element's visible ops as an array, a ``ChangeOp`` and a second
    /// search for the element by id (the deletes of the editing trace).
    mutating func applyLocalDelete(of candidate: DeleteCandidate, objectAt index: Int, id: OpId) {
        precondition(candidate.isPlain, "an element with updates or successors takes the general path")
        maxOp = max(maxOp, UInt64(id.counter))
        sequences[Int(objects[index].body)].modify(at: candidate.location) { element in
            assert(element.id == candidate.element, "the candidate's element moved")
            element.deleteInsertOp(by: id)
        }
    }

    /// Where RGA puts a new element `id` inserted after `reference`: among
    /// concurrent inserts after one element the higher op id comes first, so
    /// every following element with a higher id is skipped. (A separate
    /// function so that no copy of the tree outlives the lookup: a live copy
    /// would make the insert copy the whole tree.)
    private func insertionLocation(in tree: SequenceTree, after reference: OpId, id: OpId) -> SequenceTree.Location? {
        guard var location = tree.locationAfter(reference) else { return nil }
        while let current = tree.nextExisting(from: location), actors.precedes(id, tree.id(at: current)) {
            location = SequenceTree.Location(leaf: current.leaf, index: current.index + 1)
        }
        return location
    }

    private mutating func applyUpdate(objectAt index: Int, element: OpId, change: ChangeOp, successor: Successor) throws(ApplyError) {
        let body = Int(objects[index].body)
        guard let location = sequences[body].location(of: element) else { throw .missingElement(element) }
        let actors = self.actors
        sequences[body].modify(at: location) { element in
            for pred in change.predecessors {
                _ = element.addSuccessor(successor, to: pred, actors: actors)
            }
            if change.action != .delete {
                let op = change.storedOp
                element.updates.insert(op, at: Op.sortedPosition(of: op, in: element.updates, actors: actors))
            }
        }
    }
}

extension Op {
    mutating func addSuccessor(_ successor: Successor, actors: ActorTable) {
        successors.insert(successor, actors: actors)
    }
}

extension SequenceTree {
    /// `location` itself if it holds an element, else the next element, else nil.
    func nextExisting(from location: Location) -> Location? {
        if location.index < count(ofLeaf: location.leaf) { return location }
        return successor(of: Location(leaf: location.leaf, index: location.index - 1))
    }
}

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

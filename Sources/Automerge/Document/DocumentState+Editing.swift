/// Local edits. Each generates exactly the ops Rust generates for the same
/// call (no op for a no-op put, a delete of the losers when a put confirms a
/// conflicted winner, inserts before deletes in a splice, one op per Unicode
/// scalar of text), because those ops decide the change hashes.
extension DocumentState {
    // MARK: Maps

    mutating func put(_ obj: ObjId, key: String, action: OpAction, value: Primitive) throws(AutomergeError) -> OpId? {
        let object = try handle(obj)
        guard !object.kind.isSequence else { throw .wrongObjectType(obj, object.kind.publicType, operation: "a map key") }
        let mapKey = MapKey(key)
        let hash = MapEntries.hash(mapKey)  // once, for the lookup and the apply
        if action == .set, let id = nextOpIdInOpenTransaction {
            // A value put in an open transaction (nearly always): its op id
            // is known first, so the op is added in the same lookup that
            // checks whether the key has visible ops (nearly always a new
            // key), with no ChangeOp. The lookup goes through the op set in
            // place: reading the key's ops through a pointer to the object
            // first copied the whole map table, a retain and release of each array.
            switch ops.applyLocalMapSet(objectAt: object.index, key: mapKey, hash: hash, put: id, value: value) {
            case .added(let keyPosition):
                transaction!.appendMapSet(object: object.id, objectIndex: object.index, keyPosition: keyPosition)
                return id
            case .visible(let visible):
                return try write(object: object, key: .map(mapKey), keyHash: hash, visible: visible, action: action, value: value,
                                 prop: .Key(key))
            }
        }
        let visible = ops.withEntries(ofObjectAt: object.index) { $0.pointee[mapKey, hash: hash]?.visibleOps } ?? []
        return try write(object: object, key: .map(mapKey), keyHash: hash, visible: visible, action: action, value: value, prop: .Key(key))
    }

    // MARK: Lists and text

    /// The visible element at `index`, or an out-of-bounds error.
    ///
    /// The lookup must stay inlined here. Swift 6.3.1 miscompiles `guard let
    /// (element, _) = f() else { throw ... }; return element` in optimized
    /// builds when `f` is a call that is not inlined returning an optional
    /// tuple with a large struct in it: the element comes back as garbage.
    /// Through a helper reading `ops.withObject` (4d1e7ae), `put(obj:index:)`
    /// crashed in release builds. See scripts/miscompile-repro; CI's release
    /// test run (`LongSequenceIndexTests`) catches a return of the shape.
    func element(_ object: ObjectHandle, at index: UInt64) throws(AutomergeError) -> OpSet.VisibleElement {
        let state = ops.objects[object.index]
        guard index < UInt64(Int.max), let (element, _) = ops.visibleElement(in: state, coveringUnit: Int(index), at: nil) else {
            throw .indexOutOfBounds(index: index, length: UInt64(ops.sequence(of: state).units))
        }
        return element
    }

    mutating func put(_ obj: ObjId, index: UInt64, action: OpAction, value: Primitive) throws(AutomergeError) -> OpId? {
        let object = try sequence(obj, operation: "an index")
        let element = try self.element(object, at: index)
        return try write(object: object, key: .element(element.element.id), visible: element.ops, action: action, value: value, prop: .Index(index))
    }

    /// Emits the op for a put, delete or increment of one key or element,
    /// resolving it as Rust's `resolve_action` does.
    private mutating func write(object: ObjectHandle, key: OpKey, keyHash: UInt64? = nil, visible: [Op], action: OpAction,
                                value: Primitive, prop: Prop) throws(AutomergeError) -> OpId? {
        var action = action
        var predecessors = visible.map(\.id)
        switch action {
        case .set:
            if let winner = visible.last, winner.action == .set, !winner.isCounter, winner.value.rustEquals(value) {
                if visible.count == 1 { return nil }
                // Confirming the winner of a conflict deletes the losers.
                action = .delete
                predecessors.removeLast()
            }
        case .delete:
            if visible.isEmpty { return nil }
        case .increment:
            guard visible.contains(where: \.isCounter) else { throw .notACounter(ops.objId(object.id), prop) }
        default:
            try checkNesting(in: object, action: action)
        }
        let id = try nextOpId()
        try record(ChangeOp(id: id, object: object.id, key: key, insert: false, action: action,
                            value: action == .delete ? .null : value, predecessors: predecessors),
                   objectAt: object.index, keyHash: keyHash)
        return id
    }

    mutating func insert(_ obj: ObjId, index: UInt64, action: OpAction, value: Primitive) throws(AutomergeError) -> OpId {
        let object = try sequence(obj, operation: "insert")
        var reference = try insertionReference(object, at: index)
        return try insertElement(object, after: &reference, action: action, value: value,
                                 units: action == .set ? object.width.units(ofSet: value) : nil)
    }

    private mutating func insertElement(_ object: ObjectHandle, after reference: inout OpId, action: OpAction, value: Primitive,
                                        expand: Bool = false, markName: String? = nil, units: Int32? = nil) throws(AutomergeError) -> OpId {
        try checkNesting(in: object, action: action)
        let id = try nextOpId()
        if action.objectType == nil {
            try applyLocally { ops throws(OpSet.ApplyError) in
                try ops.applyLocalInsert(objectAt: object.index, after: reference, id: id, action: action, value: value,
                                         expand: expand, markName: markName, units: units)
            }
            transaction!.appendInsert(object: object.id, objectIndex: object.index, reference: reference, action: action)
        } else {
            try record(ChangeOp(id: id, object: object.id, key: .element(reference), insert: true, action: action,
                                value: value, predecessors: [], expand: expand, markName: markName), objectAt: object.index)
        }
        reference = id
        return id
    }

    mutating func delete(_ obj: ObjId, index: UInt64) throws(AutomergeError) {
        let object = try sequence(obj, operation: "delete at an index")
        if object.kind == .text {
            try splice(object, start: index, delete: 1, values: EmptyCollection(), atMost: 0)
        } else {
            _ = try put(obj, index: index, action: .delete, value: .null)
        }
    }

    mutating func splice(_ obj: ObjId, start: UInt64, delete: Int64, values: [Primitive]) throws(AutomergeError) {
        let object = try sequence(obj, operation: "splice")
        try splice(object, start: start, delete: delete, values: values, atMost: values.count)
    }

    mutating func spliceText(_ obj: ObjId, start: UInt64, delete: Int64, text: String) throws(AutomergeError) {
        let object = try handle(obj)
        guard object.kind == .text else { throw .wrongObjectType(obj, object.kind.publicType, operation: "spliceText") }
        // Typing: a one-byte string is one scalar and one grapheme, so it is
        // the element's value as it is (no String made per character).
        if text.utf8.count == 1 {
            try splice(object, start: start, delete: delete, values: CollectionOfOne(.string(text)), atMost: 1)
            return
        }
        // Lazily: typing one character should not allocate an array. A
        // string has no more graphemes or scalars than UTF-8 bytes.
        let atMost = text.utf8.count
        if encoding == .graphemeCluster {
            try splice(object, start: start, delete: delete, values: text.lazy.map { .string(String($0)) }, atMost: atMost)
        } else {
            try splice(object, start: start, delete: delete, values: text.unicodeScalars.lazy.map { .string(String($0)) }, atMost: atMost)
        }
    }

    /// Inserts `values` at `start`, then deletes `delete` units after them
    /// (a negative count deletes before `start`), as Rust's `inner_splice`.
    /// `atMost`: a bound on `values.count` known without counting them (a
    /// lazily split string).
    ///
    /// Everything that can fail is checked before the first op: the bounds,
    /// and that the ops fit below the op counter limit (an insert per value,
    /// at most a delete per unit deleted). Past that the ops are made
    /// without further checks; a splice never stops part-way.
    private mutating func splice(_ object: ObjectHandle, start: UInt64, delete: Int64,
                                 values: some Collection<Primitive>, atMost: Int) throws(AutomergeError) {
        let length = UInt64(units(of: object))
        var index = start
        var remaining = delete.magnitude
        if delete < 0 {
            guard delete.magnitude <= start else { throw .indexOutOfBounds(index: start, length: length) }
            index = start - delete.magnitude
        }
        guard index <= length else { throw .indexOutOfBounds(index: index, length: length) }
        let deletes = min(remaining, length - index)
        if UInt64(atMost) + deletes > opCountersLeft { try reserveOpCounters(UInt64(values.count) + deletes) }
        var insertedUnits = 0
        if !values.isEmpty {
            var reference = try insertionReference(object, at: index)
            let width = object.width
            for value in values {
                let units = width.units(ofSet: value)
                _ = try insertElement(object, after: &reference, action: .set, value: value, units: units)
                insertedUnits += Int(units)
            }
        }
        var deleteIndex = Int(index) + insertedUnits
        while remaining > 0 {
            guard let candidate = ops.deleteCandidate(objectAt: object.index, coveringUnit: deleteIndex) else { break }
            if candidate.start < deleteIndex {
                // Deleting from the middle of a multi-unit element: move to the next one.
                deleteIndex = candidate.start + candidate.units
                continue
            }
            let id = try nextOpId()
            if candidate.isPlain {
                ops.applyLocalDelete(of: candidate, objectAt: object.index, id: id)
                transaction!.appendElementDelete(object: object.id, objectIndex: object.index, element: candidate.element)
            } else {
                let predecessors = ops.withSequence(ofObjectAt: object.index) { sequence in
                    sequence.pointee.withElement(at: candidate.location) { $0.pointee.visibleOps.map(\.id) }
                }
                try record(ChangeOp(id: id, object: object.id, key: .element(candidate.element), insert: false,
                                    action: .delete, value: .null, predecessors: predecessors), objectAt: object.index)
            }
            let step = UInt64(candidate.units)
            remaining = remaining > step ? remaining - step : 0
        }
    }

    mutating func mark(_ obj: ObjId, start: UInt64, end: UInt64, expand: ExpandMark, name: String, value: Primitive) throws(AutomergeError) {
        let object = try handle(obj)
        guard object.kind == .text else { throw .wrongObjectType(obj, object.kind.publicType, operation: "mark") }
        // Rust ignores an empty span that expands neither way before it looks at positions.
        if start == end && expand == .none { return }
        let length = UInt64(units(of: object))
        guard start <= length, end <= length else { throw .indexOutOfBounds(index: start > length ? start : end, length: length) }
        try reserveOpCounters(2)
        var beginReference = try insertionReference(object, at: start)
        let begin = try insertElement(object, after: &beginReference, action: .mark, value: value,
                                      expand: expand.expandsBefore, markName: name)
        // A zero-width mark's end anchor goes right after its begin anchor.
        // The insert query alone can put it before the begin (when the begin
        // does not expand before, the end's reference is the character before
        // it), which Rust 0.11 rejects on load ("mark end occurs before mark
        // begin"; see fixtures/rust-fixtures/broken_zero_width_mark).
        // The same holds when both ends fall inside one element (a text
        // element holding a string of several characters, inserted with
        // `insert`): found by fuzzing, Corpus/ops/saved-marks-end-before-begin.
        // A span that ends before it starts is, as in Rust, a zero-width
        // mark at its start: the end's insert position precedes the begin.
        let sameElement = start >= end || (start > 0 && coveringElement(object, unit: start - 1) == coveringElement(object, unit: end - 1))
        var endReference = sameElement ? begin : try insertionReference(object, at: end)
        _ = try insertElement(object, after: &endReference, action: .mark, value: .null,
                              expand: expand.expandsAfter, markName: nil)
    }

    /// Throws, before any op is made, if an object made by `action` in
    /// `object` would be nested deeper than ``OpSet/maxDepth``.
    ///
    /// `mutating` only for speed: called on the state in place, where a
    /// non-mutating call copied the whole state (a retain of each of its
    /// buffers) on every insert of a list value.
    @inline(__always)
    private mutating func checkNesting(in object: ObjectHandle, action: OpAction) throws(AutomergeError) {
        guard action.objectType != nil, ops.withObject(at: object.index, { $0.pointee.depth }) >= OpSet.maxDepth else { return }
        throw .invalidChange("objects nested more than \(OpSet.maxDepth) deep")
    }

    /// The id of the element that covers unit `unit` of a sequence.
    private func coveringElement(_ handle: ObjectHandle, unit: UInt64) -> OpId? {
        ops.withSequence(ofObjectAt: handle.index) { sequence in
            sequence.pointee.element(coveringUnit: Int(unit)).map { sequence.pointee[$0.location].id }
        }
    }

    private func sequence(_ obj: ObjId, operation: String) throws(AutomergeError) -> ObjectHandle {
        let object = try handle(obj)
        guard object.kind.isSequence else { throw .wrongObjectType(obj, object.kind.publicType, operation: operation) }
        return object
    }

    /// The element a new element at unit `index` goes after (HEAD is
    /// `OpId.root`), as Rust's insert query chooses it (see
    /// ``SequenceTree/insertionReference(at:isText:)``).
    ///
    /// `mutating` only for speed: with exclusive access the tree is read in
    /// place; a non-mutating read copies it (a retain of each of its arrays).
    mutating func insertionReference(_ handle: ObjectHandle, at index: UInt64) throws(AutomergeError) -> OpId {
        guard index < UInt64(Int.max),
              let reference = ops.sequences[handle.body].insertionReference(at: Int(index), isText: handle.kind == .text) else {
            throw .indexOutOfBounds(index: index, length: UInt64(units(of: handle)))
        }
        return reference
    }
}

/// What an edit needs to know about its target object. Edits hold this
/// rather than a copy of the ``ObjectState``: a live copy would force every
/// write to copy the object's whole storage.
struct ObjectHandle {
    let id: OpId
    /// Position in the op set's object table (stable: objects are never removed).
    let index: Int
    let kind: ObjectKind
    let width: WidthRule
    /// Position of the object's ops in the op set's maps or sequences (by its kind).
    let body: Int
}

extension DocumentState {
    /// Inlined: called out of line on the state a document holds, the call
    /// copied the whole state (~290 bytes) per edit.
    @inline(__always)
    func handle(_ obj: ObjId) throws(AutomergeError) -> ObjectHandle {
        guard let (id, index) = ops.resolve(obj) else { throw .unknownObject(obj) }
        let (kind, body) = ops.withObject(at: index) { ($0.pointee.kind, Int($0.pointee.body)) }
        let width = kind.isSequence ? ops.withSequence(atBody: body) { $0.pointee.width }
            : WidthRule(isText: false, encoding: ops.encoding)
        return ObjectHandle(id: id, index: index, kind: kind, width: width, body: body)
    }

    @inline(__always)  // out of line, the call copied the whole state (see ``handle(_:)``)
    func units(of object: ObjectHandle) -> Int {
        precondition(object.kind.isSequence, "not a sequence")
        return ops.withSequence(atBody: object.body) { $0.pointee.units }
    }
}

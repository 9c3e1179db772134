/// Patches as the difference between two points in history: every object
/// reachable in the later state is compared with its earlier self, and the
/// differences come out in document order (parents before children, keys in
/// order, list positions left to right, each index valid after the patches
/// before it).
extension DocumentState {
    func patches(from before: Clock?, to after: Clock?) -> [Patch] {
        var result: [Patch] = []
        diffObject(.root, path: [], before: before, after: after, isNew: false, into: &result)
        return result
    }

    /// The patches from the document at `heads` to the document now.
    func patches(since heads: Set<ChangeHash>) throws(AutomergeError) -> [Patch] {
        patches(from: try clock(heads), to: try clock(history.heads))
    }

    private func diffObject(_ id: OpId, path: [PathElement], before: Clock?, after: Clock?, isNew: Bool, into result: inout [Patch]) {
        guard let object = ops.object(id) else { return }
        let obj = ops.objId(id)
        if object.kind.isSequence {
            diffSequence(object, obj: obj, path: path, before: isNew ? nil : before, after: after, isNew: isNew, into: &result)
        } else {
            diffMap(object, obj: obj, path: path, before: before, after: after, isNew: isNew, into: &result)
        }
    }

    private func diffMap(_ object: ObjectState, obj: ObjId, path: [PathElement], before: Clock?, after: Clock?, isNew: Bool, into result: inout [Patch]) {
        let keys = Set(ops.visibleKeys(in: object, at: after)).union(isNew ? [] : ops.visibleKeys(in: object, at: before)).sorted()
        for key in keys {
            let old = isNew ? [] : visible(object, key: key, at: before)
            let new = visible(object, key: key, at: after)
            let prop = Prop.Key(key.string)
            guard let winner = new.last else {
                if !old.isEmpty { result.append(Patch(action: .DeleteMap(obj, key.string), path: path)) }
                continue
            }
            diffValue(winner: winner, new: new, old: old, obj: obj, prop: prop, path: path, before: before, after: after, into: &result)
        }
    }

    private func visible(_ object: ObjectState, key: MapKey, at clock: Clock?) -> [Op] {
        guard let clock else { return ops.visibleOps(in: object, key: key, at: nil) }
        return ops.visibleOps(in: object, key: key, at: clock)
    }

    private func diffValue(winner: Op, new: [Op], old: [Op], obj: ObjId, prop: Prop, path: [PathElement],
                           before: Clock?, after: Clock?, into result: inout [Patch]) {
        let oldWinner = old.last
        if let oldWinner, oldWinner.id == winner.id {
            if winner.isCounter {
                let delta = winner.counterValue(at: after) &- winner.counterValue(at: before)
                if delta != 0 { result.append(Patch(action: .Increment(obj, prop, delta), path: path)) }
            }
            if new.count > 1 && old.count != new.count { result.append(Patch(action: .Conflict(obj, prop), path: path)) }
            if winner.action.objectType != nil {
                diffObject(winner.id, path: path + [PathElement(obj: obj, prop: prop)], before: before, after: after, isNew: false, into: &result)
            }
            return
        }
        result.append(Patch(action: .Put(obj, prop, ops.value(of: winner, at: after)), path: path))
        if new.count > 1 { result.append(Patch(action: .Conflict(obj, prop), path: path)) }
        if winner.action.objectType != nil {
            diffObject(winner.id, path: path + [PathElement(obj: obj, prop: prop)], before: before, after: after, isNew: true, into: &result)
        }
    }

    private func diffSequence(_ object: ObjectState, obj: ObjId, path: [PathElement], before: Clock?, after: Clock?, isNew: Bool, into result: inout [Patch]) {
        let sequence = ops.sequence(of: object)
        let width = sequence.width
        var index = 0
        var pendingDelete = 0
        var pendingInsert: [Op] = []
        var insertStart = 0
        let isText = object.kind == .text
        var marksAt = MarkSweep(isText ? spans(object, at: after) : [])
        var markChanges = MarkChanges(old: isText && !isNew ? spans(object, at: before) : [])
        var oldIndex = 0
        func flushDelete() {
            if pendingDelete > 0 {
                result.append(Patch(action: .DeleteSeq(DeleteSeq(obj: obj, index: UInt64(index), length: UInt64(pendingDelete))), path: path))
                pendingDelete = 0
            }
        }
        func flushInsert() {
            guard !pendingInsert.isEmpty else { return }
            if object.kind == .text {
                // One splice per run of characters under the same marks, as Rust reports them.
                var start = insertStart, position = insertStart, text = ""
                marksAt.advance(to: position)
                var marks = marksAt.active, generation = marksAt.generation
                for op in pendingInsert {
                    marksAt.advance(to: position)
                    if marksAt.generation != generation, marksAt.active != marks {
                        result.append(Patch(action: .SpliceText(obj: obj, index: UInt64(start), value: text, marks: marks), path: path))
                        (start, text, marks) = (position, "", marksAt.active)
                    }
                    generation = marksAt.generation
                    if op.action == .set, case .string(let string) = op.value { text += string } else { text += TextWidth.objectReplacement }
                    position += Int(width.units(of: op))
                }
                result.append(Patch(action: .SpliceText(obj: obj, index: UInt64(start), value: text, marks: marks), path: path))
            } else {
                result.append(Patch(action: .Insert(obj: obj, index: UInt64(insertStart), values: pendingInsert.map { ops.value(of: $0, at: after) }), path: path))
            }
            pendingInsert = []
        }
        var children: [(OpId, Int, Bool)] = []
        sequence.forEach { element in
            if element.isMark { return true }
            let oldOps = isNew ? [] : (before.map { element.visibleOps(at: $0) } ?? element.visibleOps)
            let newOps = after.map { element.visibleOps(at: $0) } ?? element.visibleOps
            switch (oldOps.last, newOps.last) {
            case (nil, nil):
                break
            case (.some(let old), nil):
                flushInsert()
                pendingDelete += object.kind == .text ? Int(width.units(of: old)) : 1
                oldIndex += Int(width.units(of: old))
            case (nil, .some(let new)):
                flushDelete()
                if pendingInsert.isEmpty { insertStart = index }
                pendingInsert.append(new)
                if new.action.objectType != nil { children.append((new.id, index, true)) }
                index += Int(width.units(of: new))
            case (.some(let old), .some(let new)):
                flushInsert()
                flushDelete()
                let prop = Prop.Index(UInt64(index))
                if old.id != new.id {
                    result.append(Patch(action: .Put(obj, prop, ops.value(of: new, at: after)), path: path))
                    if new.action.objectType != nil { children.append((new.id, index, true)) }
                } else {
                    if new.isCounter {
                        let delta = new.counterValue(at: after) &- new.counterValue(at: before)
                        if delta != 0 { result.append(Patch(action: .Increment(obj, prop, delta), path: path)) }
                    }
                    if new.action.objectType != nil { children.append((new.id, index, false)) }
                }
                if isText { markChanges.kept(old: oldIndex, new: index, width: Int(width.units(of: new)), newMarks: &marksAt) }
                oldIndex += Int(width.units(of: old))
                index += Int(width.units(of: new))
            }
            return true
        }
        flushInsert()
        flushDelete()
        let changedMarks = markChanges.finish()
        if !changedMarks.isEmpty { result.append(Patch(action: .Marks(obj, changedMarks), path: path)) }
        for (child, childIndex, childIsNew) in children {
            diffObject(child, path: path + [PathElement(obj: obj, prop: .Index(UInt64(childIndex)))], before: before, after: after, isNew: childIsNew, into: &result)
        }
    }

    private func spans(_ object: ObjectState, at clock: Clock?) -> [MarkSpan] {
        var spans: [MarkSpan] = []
        scanMarks(in: object, at: clock) { spans.append($0) }
        return spans
    }
}

extension Document {
    /// The patches that turn the state at `before` into the state at `after`.
    public func difference(from before: Set<ChangeHash>, to after: Set<ChangeHash>) -> [Patch] {
        (try? locked { state throws(AutomergeError) in
            state.commit()
            return state.patches(from: try state.clock(before), to: try state.clock(after))
        }) ?? []
    }

    /// The patches from the state at `heads` to the current state.
    public func difference(since heads: Set<ChangeHash>) -> [Patch] {
        difference(from: heads, to: self.heads())
    }

    /// The patches from the current state to the state at `heads` (a
    /// point earlier in history moves the document back), as in automerge-swift.
    public func difference(to heads: Set<ChangeHash>) -> [Patch] {
        difference(from: self.heads(), to: heads)
    }
}

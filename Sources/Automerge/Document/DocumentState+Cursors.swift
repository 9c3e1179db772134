/// Cursors, path lookup and text replacement.
extension DocumentState {
    func cursor(_ obj: ObjId, position: UInt64, heads: Set<ChangeHash>?) throws(AutomergeError) -> Cursor {
        let object = try self.object(obj)
        guard object.kind.isSequence else { throw .wrongObjectType(obj, object.kind.publicType, operation: "cursor") }
        let clock = try clock(heads)
        let length = UInt64(ops.length(of: object, at: clock))
        if position == length { return Cursor(anchor: .end) }
        guard position < length, let (element, _) = ops.visibleElement(in: object, coveringUnit: Int(position), at: clock) else {
            throw .indexOutOfBounds(index: position, length: length)
        }
        let id = element.element.id
        return Cursor(anchor: .element(counter: UInt64(id.counter), actor: ops.actors[id.actor], before: false))
    }

    func position(_ obj: ObjId, cursor: Cursor, heads: Set<ChangeHash>?) throws(AutomergeError) -> UInt64 {
        let object = try self.object(obj)
        guard object.kind.isSequence else { throw .wrongObjectType(obj, object.kind.publicType, operation: "cursor position") }
        let clock = try clock(heads)
        switch cursor.anchor {
        case .start: return 0
        case .end: return UInt64(ops.length(of: object, at: clock))
        case .element(let counter, let actor, let before):
            guard counter >= 1, counter <= maxOpCounter, let actorIndex = ops.actors.index(of: actor) else {
                throw .invalidCursor("\(cursor) does not name an element of \(obj)")
            }
            let id = OpId(counter: UInt32(counter), actor: actorIndex)
            guard ops.sequence(of: object).contains(id) else { throw .invalidCursor("\(cursor) does not name an element of \(obj)") }
            if let clock, !clock.covers(id) { throw .invalidCursor("\(cursor) did not exist at those heads") }
            let (index, visible) = position(of: id, in: object, at: clock)
            if !visible && before { return UInt64(max(index - 1, 0)) }
            return UInt64(index)
        }
    }

    /// Replaces the text of `obj` with `target` through a grapheme diff.
    ///
    /// The splices are worked out first and checked to fit below the op
    /// counter limit together (each deleted unit and each inserted scalar
    /// costs at most one op), so that the update never stops part-way; the
    /// splices themselves stay within bounds, since they follow the text.
    mutating func updateText(_ obj: ObjId, to target: String) throws(AutomergeError) {
        let old = Array(try text(obj, heads: nil))
        let new = Array(target)
        func width(_ characters: ArraySlice<Character>) -> UInt64 {
            UInt64(characters.reduce(0) { $0 + TextWidth.width(of: String($1), in: encoding) })
        }
        let edits = TextDiff.myers(old, new)
        var opsNeeded: UInt64 = 0
        for edit in edits {
            switch edit {
            case .equal: break
            case .delete(let oldIndex, let count, _): opsNeeded += width(old[oldIndex..<oldIndex + count])
            case .insert(_, let newIndex, let count): opsNeeded += UInt64(new[newIndex..<newIndex + count].reduce(0) { $0 + $1.unicodeScalars.count })
            }
        }
        try reserveOpCounters(opsNeeded)
        var index: UInt64 = 0
        for edit in edits {
            switch edit {
            case .equal(let oldIndex, _, let count):
                index += width(old[oldIndex..<oldIndex + count])
            case .delete(let oldIndex, let count, _):
                try spliceText(obj, start: index, delete: Int64(width(old[oldIndex..<oldIndex + count])), text: "")
            case .insert(_, let newIndex, let count):
                let inserted = String(new[newIndex..<newIndex + count])
                try spliceText(obj, start: index, delete: 0, text: inserted)
                index += width(new[newIndex..<newIndex + count])
            }
        }
    }
}

/// Reads, at the current state (heads nil) or at a point in history.
extension DocumentState {
    func clock(_ heads: Set<ChangeHash>?) throws(AutomergeError) -> Clock? {
        guard let heads else { return nil }
        return try clock(heads)
    }

    func get(_ obj: ObjId, key: String, heads: Set<ChangeHash>?) throws(AutomergeError) -> [Op] {
        let object = try self.object(obj)
        guard !object.kind.isSequence else { throw .wrongObjectType(obj, object.kind.publicType, operation: "a map key") }
        return ops.visibleOps(in: object, key: MapKey(key), at: try clock(heads))
    }

    func get(_ obj: ObjId, index: UInt64, heads: Set<ChangeHash>?) throws(AutomergeError) -> [Op] {
        let object = try self.object(obj)
        guard object.kind.isSequence else { throw .wrongObjectType(obj, object.kind.publicType, operation: "an index") }
        guard index < UInt64(Int.max) else { return [] }
        return ops.visibleElement(in: object, coveringUnit: Int(index), at: try clock(heads))?.0.ops ?? []
    }

    func keys(_ obj: ObjId, heads: Set<ChangeHash>?) throws(AutomergeError) -> [String] {
        let object = try self.object(obj)
        guard !object.kind.isSequence else { return [] }
        return ops.visibleKeys(in: object, at: try clock(heads)).map(\.string)
    }

    func values(_ obj: ObjId, heads: Set<ChangeHash>?) throws(AutomergeError) -> [Value] {
        let object = try self.object(obj)
        let clock = try clock(heads)
        if object.kind.isSequence {
            return ops.visibleElements(in: object, at: clock).map { ops.value(of: $0.winner, at: clock) }
        }
        return ops.visibleKeys(in: object, at: clock).map { key in
            ops.value(of: ops.winningOp(in: object, key: key, at: clock)!, at: clock)
        }
    }

    func mapEntries(_ obj: ObjId, heads: Set<ChangeHash>?) throws(AutomergeError) -> [(String, Value)] {
        let object = try self.object(obj)
        guard !object.kind.isSequence else { throw .wrongObjectType(obj, object.kind.publicType, operation: "mapEntries") }
        let clock = try clock(heads)
        return ops.visibleKeys(in: object, at: clock).map { key in
            (key.string, ops.value(of: ops.winningOp(in: object, key: key, at: clock)!, at: clock))
        }
    }

    func length(_ obj: ObjId, heads: Set<ChangeHash>?) throws(AutomergeError) -> UInt64 {
        guard let heads else {
            guard let length = length(obj) else { throw .unknownObject(obj) }
            return length
        }
        return UInt64(ops.length(of: try object(obj), at: try clock(heads)))
    }

    /// The current length of `obj`, nil for an unknown object. Not throwing:
    /// apps ask for it before every append, and a typed-throws call copies
    /// its error buffer even when nothing is thrown. A sequence's length is
    /// read in place, not from a copy of the object.
    @inline(__always)  // out of line, the call copied the whole state (see ``handle(_:)``)
    func length(_ obj: ObjId) -> UInt64? {
        guard let (_, index) = ops.resolve(obj) else { return nil }
        let (isSequence, body) = ops.withObject(at: index) { ($0.pointee.kind.isSequence, Int($0.pointee.body)) }
        if isSequence { return UInt64(ops.withSequence(atBody: body) { $0.pointee.units }) }
        return ops.withObject(at: index) { UInt64(ops.length(of: $0.pointee, at: nil)) }
    }

    func text(_ obj: ObjId, heads: Set<ChangeHash>?) throws(AutomergeError) -> String {
        let object = try self.object(obj)
        guard object.kind == .text else { throw .wrongObjectType(obj, object.kind.publicType, operation: "text") }
        return ops.text(of: object, at: try clock(heads))
    }

    /// The path from the root to `obj`.
    func path(_ obj: ObjId, heads: Set<ChangeHash>? = nil) throws(AutomergeError) -> [PathElement] {
        var object = try self.object(obj)
        var path: [PathElement] = []
        let clock = try clock(heads)
        while let key = object.keyInParent {
            guard let parent = ops.object(object.parent) else { break }
            let prop: Prop
            switch key {
            case .map(let mapKey): prop = .Key(mapKey.string)
            case .element(let element):
                prop = .Index(UInt64(position(of: element, in: parent, at: clock).index))
            }
            path.append(PathElement(obj: ops.objId(parent.id), prop: prop))
            object = parent
        }
        return path.reversed()
    }

    /// The visible units before element `id`, and whether it is visible.
    func position(of id: OpId, in object: ObjectState, at clock: Clock?) -> (index: Int, visible: Bool) {
        let sequence = ops.sequence(of: object)
        if let clock {
            var index = 0
            var found: (Int, Bool) = (0, false)
            sequence.forEach { element in
                let ops = element.visibleOps(at: clock)
                if element.id == id { found = (index, !ops.isEmpty); return false }
                if let last = ops.last { index += Int(sequence.width.units(of: last)) }
                return true
            }
            return found
        }
        guard let location = sequence.location(of: id) else { return (0, false) }
        return (sequence.unitsBefore(location), sequence[location].units > 0 || sequence[location].winner != nil)
    }
}

/// A place in a document that holds one value: a key of a map, an existing
/// element of a list, or the position where a new list element goes.
enum ValueSlot: Hashable, Sendable {
    /// `key` of the map `obj`.
    case key(ObjId, String)
    /// The existing element at `index` of the list `obj`.
    case index(ObjId, UInt64)
    /// A new element inserted at `index` of the list `obj`.
    case append(ObjId, UInt64)

    /// The object that holds the slot.
    var container: ObjId {
        switch self {
        case .key(let obj, _), .index(let obj, _), .append(let obj, _): return obj
        }
    }

    /// The slot of the value once it exists (an appended element becomes an index).
    var settled: ValueSlot {
        if case .append(let obj, let index) = self { return .index(obj, index) }
        return self
    }
}

extension Document {
    /// The value in `slot` (nil for an empty slot or a new element).
    func value(at slot: ValueSlot) throws -> Value? {
        switch slot {
        case .key(let obj, let key): return try get(obj: obj, key: key)
        case .index(let obj, let index): return try get(obj: obj, index: index)
        case .append: return nil
        }
    }

    /// Writes a scalar into `slot`.
    func put(_ value: ScalarValue, at slot: ValueSlot) throws {
        switch slot {
        case .key(let obj, let key): try put(obj: obj, key: key, value: value)
        case .index(let obj, let index): try put(obj: obj, index: index, value: value)
        case .append(let obj, let index): try insert(obj: obj, index: index, value: value)
        }
    }

    /// Creates an empty object in `slot` and returns its id.
    func createObject(_ type: ObjType, at slot: ValueSlot) throws -> ObjId {
        switch slot {
        case .key(let obj, let key): return try putObject(obj: obj, key: key, ty: type)
        case .index(let obj, let index): return try putObject(obj: obj, index: index, ty: type)
        case .append(let obj, let index): return try insertObject(obj: obj, index: index, ty: type)
        }
    }

    /// Adds `delta` to the counter in `slot`.
    func increment(at slot: ValueSlot, by delta: Int64) throws {
        switch slot {
        case .key(let obj, let key): try increment(obj: obj, key: key, by: delta)
        case .index(let obj, let index), .append(let obj, let index): try increment(obj: obj, index: index, by: delta)
        }
    }
}

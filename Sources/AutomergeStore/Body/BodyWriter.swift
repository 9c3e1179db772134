import Automerge

/// Writes a body into an Automerge document with the fewest ops that make
/// the document's JSON view equal it: equal values make no ops, maps and
/// lists that stay maps and lists are edited in place (so concurrent edits
/// of other fields merge), strings held as Automerge text are spliced and
/// counters incremented.
enum BodyWriter {
    /// Where a value lives: a key of a map or a position of a list.
    enum Slot {
        case key(ObjId, String)
        case index(ObjId, UInt64)

        func get(_ document: Document) throws -> Value? {
            switch self {
            case .key(let map, let key): return try document.get(obj: map, key: key)
            case .index(let list, let index): return try document.get(obj: list, index: index)
            }
        }

        func put(_ value: ScalarValue, _ document: Document) throws {
            switch self {
            case .key(let map, let key): try document.put(obj: map, key: key, value: value)
            case .index(let list, let index): try document.put(obj: list, index: index, value: value)
            }
        }

        func increment(by delta: Int64, _ document: Document) throws {
            switch self {
            case .key(let map, let key): try document.increment(obj: map, key: key, by: delta)
            case .index(let list, let index): try document.increment(obj: list, index: index, by: delta)
            }
        }

        func putObject(_ type: ObjType, _ document: Document) throws -> ObjId {
            switch self {
            case .key(let map, let key): return try document.putObject(obj: map, key: key, ty: type)
            case .index(let list, let index): return try document.putObject(obj: list, index: index, ty: type)
            }
        }
    }

    /// Makes the document's body (its root map but the reserved keys) `body`.
    static func write(_ body: [ExactString: BodyValue], into document: Document) throws {
        for key in document.keys(obj: .ROOT) where !StoredLayout.isReserved(key) && body[ExactString(key)] == nil {
            try document.delete(obj: .ROOT, key: key)
        }
        for (key, value) in body.sorted(by: { $0.key < $1.key }) {
            try write(value, to: .key(.ROOT, key.string), of: document)
        }
    }

    /// Makes the value in `slot` equal `value`, editing what is there when it can.
    static func write(_ value: BodyValue, to slot: Slot, of document: Document) throws {
        let existing = try slot.get(document)
        if let existing, try BodyReader.read(existing, in: document) == value { return }
        switch (value, existing) {
        case (.map(let entries), .Object(let id, .Map)?):
            try update(map: id, to: entries, in: document)
        case (.list(let elements), .Object(let id, .List)?):
            try update(list: id, to: elements, in: document)
        case (.string(let string), .Object(let id, .Text)?):
            try document.updateText(obj: id, value: string)
        case (.int(let target), .Scalar(.Counter(let current))?):
            // A counter stays a counter, so that concurrent increments add up.
            let (delta, overflow) = target.subtractingReportingOverflow(current)
            if overflow { try replace(slot, with: value, of: document) } else { try slot.increment(by: delta, document) }
        default:
            try replace(slot, with: value, of: document)
        }
    }

    /// Puts `value` in `slot` as a new value, even when it equals what reads
    /// return, so that it replaces every concurrent value (resolving a conflict).
    static func replace(_ slot: Slot, with value: BodyValue, of document: Document) throws {
        switch value {
        case .map(let entries): try update(map: try slot.putObject(.Map, document), to: entries, in: document)
        case .list(let elements): try update(list: try slot.putObject(.List, document), to: elements, in: document)
        default: try slot.put(scalar(value), document)
        }
    }

    static func update(map: ObjId, to entries: [ExactString: BodyValue], in document: Document) throws {
        for key in document.keys(obj: map) where entries[ExactString(key)] == nil {
            try document.delete(obj: map, key: key)
        }
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
            try write(value, to: .key(map, key.string), of: document)
        }
    }

    /// Keeps the common prefix and suffix, edits the middle's paired
    /// positions in place, then deletes or inserts the rest.
    static func update(list: ObjId, to elements: [BodyValue], in document: Document) throws {
        let current = try document.values(obj: list).map { try BodyReader.read($0, in: document) }
        var prefix = 0
        while prefix < current.count, prefix < elements.count, current[prefix] == elements[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < current.count - prefix, suffix < elements.count - prefix,
            current[current.count - 1 - suffix] == elements[elements.count - 1 - suffix]
        {
            suffix += 1
        }
        let oldMiddle = current.count - prefix - suffix
        let newMiddle = elements.count - prefix - suffix
        for offset in 0..<min(oldMiddle, newMiddle) {
            try write(elements[prefix + offset], to: .index(list, UInt64(prefix + offset)), of: document)
        }
        if oldMiddle > newMiddle {
            for _ in newMiddle..<oldMiddle { try document.delete(obj: list, index: UInt64(prefix + newMiddle)) }
        } else {
            for offset in oldMiddle..<newMiddle {
                try insert(elements[prefix + offset], at: UInt64(prefix + offset), in: list, of: document)
            }
        }
    }

    static func insert(_ value: BodyValue, at index: UInt64, in list: ObjId, of document: Document) throws {
        switch value {
        case .map(let entries):
            try update(map: try document.insertObject(obj: list, index: index, ty: .Map), to: entries, in: document)
        case .list(let elements):
            try update(list: try document.insertObject(obj: list, index: index, ty: .List), to: elements, in: document)
        default:
            try document.insert(obj: list, index: index, value: scalar(value))
        }
    }

    static func scalar(_ value: BodyValue) -> ScalarValue {
        switch value {
        case .null: return .Null
        case .bool(let value): return .Boolean(value)
        case .int(let value): return .Int(value)
        case .double(let value): return .F64(value)
        case .string(let value): return .String(value)
        case .list, .map: preconditionFailure("objects are written by replace/insert")
        }
    }
}

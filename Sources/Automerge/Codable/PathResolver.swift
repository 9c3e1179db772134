/// Follows a schema path (``AnyCodingKey`` steps) through a document, for
/// reading or for deciding where and what to write. Never writes itself.
struct PathResolver {
    let doc: Document

    /// Where an encode at a path goes.
    struct WriteTarget {
        /// The deepest existing container on the path.
        var parent: ObjId
        /// The steps from `parent` on. `steps[0]` is a slot of `parent`; when
        /// there are more, every step but the last names a container to create.
        var steps: [Prop]
        /// The value at `steps[0]` when it is the only step.
        var existing: Value?
        /// The slot of `steps[0]`.
        var slot: ValueSlot
    }

    /// The value at `path` and its slot (nil for the root). The containers
    /// along the path must exist; the final value may be missing.
    func read(_ path: [AnyCodingKey]) throws -> (value: Value?, slot: ValueSlot?) {
        CodableLog(level: doc.logLevel).trace("look up \(path.stringPath())")
        let steps = path.droppingRoot.map(\.prop)
        guard !steps.isEmpty else { return (.Object(.ROOT, .Map), nil) }
        var current = ObjId.ROOT
        var kind = ObjType.Map
        for (offset, step) in steps.enumerated() {
            let here = Array(path.droppingRoot.prefix(offset))
            let (slot, existing) = try lookup(step, in: current, kind: kind, at: here)
            if offset == steps.count - 1 { return (existing, slot.settled) }
            let next = Array(path.droppingRoot.prefix(offset + 1))
            switch existing {
            case .Object(let id, let type) where type != .Text:
                current = id
                kind = type
            case nil:
                throw CodingKeyLookupError.SchemaMissing("Nothing at \(next.stringPath()), so the path \(path.stringPath()) does not exist.")
            case .Object(_, _):
                throw CodingKeyLookupError.PathExtendsThroughText("The path \(path.stringPath()) continues past the Text object at \(next.stringPath()).")
            case .Scalar(let scalar):
                throw CodingKeyLookupError.PathExtendsThroughScalar("The path \(path.stringPath()) continues past the scalar \(scalar) at \(next.stringPath()).")
            }
        }
        fatalError("unreachable")
    }

    /// Where a value encoded at `path` goes; nil for the root map. Missing
    /// containers are planned for creation unless `strategy` is `.readonly`;
    /// mismatched ones are replaced only with `.override`.
    func write(_ path: [AnyCodingKey], strategy: SchemaStrategy) throws -> WriteTarget? {
        CodableLog(level: doc.logLevel).trace("find where \(path.stringPath()) goes (\(strategy))")
        let keys = Array(path.droppingRoot)
        let steps = keys.map(\.prop)
        guard !steps.isEmpty else { return nil }
        var current = ObjId.ROOT
        var kind = ObjType.Map
        for (offset, step) in steps.enumerated() {
            let (slot, existing) = try lookup(step, in: current, kind: kind, at: Array(keys.prefix(offset)))
            if offset == steps.count - 1 {
                return WriteTarget(parent: current, steps: [step], existing: existing, slot: slot)
            }
            let needed: ObjType = if case .Index = steps[offset + 1] { .List } else { .Map }
            let here = Array(keys.prefix(offset + 1)).stringPath()
            if case .Object(let id, let type) = existing, type == needed {
                current = id
                kind = type
                continue
            }
            if let existing, strategy != .override {
                switch existing {
                case .Object(_, .Text):
                    throw CodingKeyLookupError.PathExtendsThroughText("The path \(path.stringPath()) continues past the Text object at \(here).")
                case .Scalar(let scalar):
                    throw CodingKeyLookupError.PathExtendsThroughScalar("The path \(path.stringPath()) continues past the scalar \(scalar) at \(here).")
                case .Object(_, let type):
                    throw CodingKeyLookupError.MismatchedSchema("The path \(path.stringPath()) needs a \(needed) at \(here), but the document has a \(type).")
                }
            }
            if strategy == .readonly {
                throw CodingKeyLookupError.SchemaMissing("The path \(path.stringPath()) needs a \(needed) at \(here), and the readonly strategy does not create it.")
            }
            for (later, laterStep) in steps.enumerated().dropFirst(offset + 1) {
                if case .Index(let index) = laterStep, index != 0 {
                    let at = Array(keys.prefix(later + 1)).stringPath()
                    throw CodingKeyLookupError.IndexOutOfBounds("The path \(path.stringPath()) needs index \(index) at \(at) in a list that does not exist yet; only index 0 can be created.")
                }
            }
            return WriteTarget(parent: current, steps: Array(steps[offset...]), existing: nil, slot: slot)
        }
        return nil
    }

    /// The slot `step` names in `obj` and the value in it. An index equal to
    /// the list length names a new element; a larger one throws.
    private func lookup(_ step: Prop, in obj: ObjId, kind: ObjType, at path: [AnyCodingKey]) throws -> (ValueSlot, Value?) {
        let place = path.isEmpty ? "the root" : path.stringPath()
        switch (step, kind) {
        case (.Key(let key), .Map):
            return (.key(obj, key), try doc.get(obj: obj, key: key))
        case (.Index(let index), .List):
            let length = doc.length(obj: obj)
            if index < length { return (.index(obj, index), try doc.get(obj: obj, index: index)) }
            if index == length { return (.append(obj, index), nil) }
            throw CodingKeyLookupError.IndexOutOfBounds("Index \(index) is past the end of the list at \(place) (length \(length)).")
        case (.Key(let key), _):
            throw CodingKeyLookupError.InvalidValueLookup("Key '\(key)' can't address \(place): it is a \(kind), not a map.")
        case (.Index(let index), _):
            throw CodingKeyLookupError.InvalidIndexLookup("Index \(index) can't address \(place): it is a \(kind), not a list.")
        }
    }
}

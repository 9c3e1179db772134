/// Carries out a plan (phase two of an encode): every write the planner
/// decided, in order, and the binding of ``AutomergeText`` and ``Counter``
/// instances to the objects and counters they now live in.
struct PlanWriter {
    let doc: Document

    func apply(_ action: SlotAction, at slot: ValueSlot) throws {
        switch action {
        case .put(let scalar):
            try doc.put(scalar, at: slot)
        case .create(let value):
            try create(value, at: slot)
        case .map(let plan):
            try apply(plan)
        case .list(let plan):
            try apply(plan)
        case .text(let id, let newValue, let bind):
            if let newValue { try doc.updateText(obj: id, value: newValue) }
            bind?.attach(doc: doc, id: id)
        case .counter(let delta, let bind):
            if delta != 0 { try doc.increment(at: slot, by: delta) }
            bind?.attach(doc: doc, slot: slot.settled)
        }
    }

    func apply(_ plan: MapPlan) throws {
        for (key, action) in plan.updates { try apply(action, at: .key(plan.obj, key)) }
        for key in plan.deletions { try doc.delete(obj: plan.obj, key: key) }
    }

    func apply(_ plan: ListPlan) throws {
        for edit in plan.edits {
            switch edit {
            case .delete(let index, let count):
                try doc.splice(obj: plan.obj, start: index, delete: count, values: [])
            case .insert(let index, let values):
                try insert(values, into: plan.obj, at: index)
            case .update(let index, let action):
                try apply(action, at: .index(plan.obj, index))
            }
        }
    }

    /// Writes `value` from scratch into `slot`, replacing whatever is there.
    func create(_ value: EncodedValue, at slot: ValueSlot) throws {
        switch value.resolved {
        case .scalar(let scalar):
            try doc.put(scalar, at: slot)
        case .counter(let counter):
            try doc.put(.Counter(Int64(counter.value)), at: slot)
            if !counter.isBound(toOtherThan: doc) { counter.attach(doc: doc, slot: slot.settled) }
        case .text(let text):
            let id = try doc.createObject(.Text, at: slot)
            let content = text.value
            if !content.isEmpty { try doc.spliceText(obj: id, start: 0, delete: 0, value: content) }
            if !text.isBound(toOtherThan: doc) { text.attach(doc: doc, id: id) }
        case .map(let map):
            let id = try doc.createObject(.Map, at: slot)
            for (key, child) in map.entries { try create(child, at: .key(id, key)) }
        case .list(let list):
            let id = try doc.createObject(.List, at: slot)
            try insert(list.resolvedItems, into: id, at: 0)
        case .deferred:
            break
        }
    }

    /// Inserts new elements at `index` of the list `obj`; runs of scalars go in one splice.
    func insert(_ values: [EncodedValue], into obj: ObjId, at index: UInt64) throws {
        var position = index
        var scalars: [ScalarValue] = []
        func flush() throws {
            guard !scalars.isEmpty else { return }
            try doc.splice(obj: obj, start: position, delete: 0, values: scalars)
            position += UInt64(scalars.count)
            scalars.removeAll(keepingCapacity: true)
        }
        for value in values {
            if case .scalar(let scalar) = value.resolved {
                scalars.append(scalar)
                continue
            }
            try flush()
            try create(value, at: .append(obj, position))
            position += 1
        }
        try flush()
    }

    /// Creates the missing containers of an encode target, then `value` at
    /// its end; returns the slot that now holds `value`.
    @discardableResult
    func create(_ value: EncodedValue, along target: PathResolver.WriteTarget) throws -> ValueSlot {
        var slot = target.slot
        for next in target.steps.dropFirst() {
            switch next {
            case .Key(let key):
                slot = .key(try doc.createObject(.Map, at: slot), key)
            case .Index:
                slot = .append(try doc.createObject(.List, at: slot), 0)
            }
        }
        try create(value, at: slot)
        return slot.settled
    }
}

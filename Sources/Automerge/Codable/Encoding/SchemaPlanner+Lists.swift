/// Lists: the model's array is aligned with the document's list so that only
/// the elements that differ are touched. Unchanged elements produce no ops, a
/// changed element is updated in place, and an inserted or removed element
/// costs one insert or delete, wherever it is.
extension SchemaPlanner {
    func planList(_ list: EncodedList, in obj: ObjId, path: [any CodingKey]) throws -> ListPlan {
        let old = try doc.values(obj: obj)
        let new = list.resolvedItems
        // Text over the element at the same index, as automerge-swift writes lists.
        for index in 0..<min(old.count, new.count) {
            guard case .text = new[index] else { continue }
            if case .Object(_, .Text) = old[index] { continue }
            try checkTextReplaces(old[index], at: path + [AnyCodingKey(UInt64(index))])
        }
        let matcher = ElementMatcher(doc: doc, old: old, new: new)
        let common = min(old.count, new.count)
        var prefix = 0
        while prefix < common, matcher.matches(new[prefix], old[prefix]) { prefix += 1 }
        var suffix = 0
        while suffix < common - prefix, matcher.matches(new[new.count - 1 - suffix], old[old.count - 1 - suffix]) { suffix += 1 }

        var builder = ListPlanBuilder(planner: self, obj: obj, old: old, new: new, path: path)
        for index in 0..<prefix { try builder.keep(old: index, new: index) }
        let middle = ListAlignment.align(oldCount: old.count - prefix - suffix, newCount: new.count - prefix - suffix) {
            matcher.same($0 + prefix, $1 + prefix)
        }
        for step in middle {
            switch step {
            case .keep(let o, let n): try builder.keep(old: o + prefix, new: n + prefix)
            case .delete(let o): builder.pendingDeletes.append(o + prefix)
            case .insert(let n): builder.pendingInserts.append(n + prefix)
            }
        }
        for offset in (0..<suffix).reversed() {
            try builder.keep(old: old.count - 1 - offset, new: new.count - 1 - offset)
        }
        try builder.flush()
        return ListPlan(obj: obj, edits: builder.edits)
    }
}

/// Decides whether an old element equals a new one, comparing snapshots
/// (cached, with their hashes) so each element is read from the document once.
final class ElementMatcher {
    let doc: Document
    let old: [Value]
    let new: [EncodedValue]
    private var oldCache: [Int: (hash: Int, snapshot: CodableSnapshot?)] = [:]
    private var newCache: [Int: (hash: Int, snapshot: CodableSnapshot)] = [:]

    init(doc: Document, old: [Value], new: [EncodedValue]) {
        self.doc = doc
        self.old = old
        self.new = new
    }

    /// Whether `new` equals the document value `old`, reading the document
    /// only as far as the first difference. Used for the common prefix and
    /// suffix, where each element is compared once.
    func matches(_ new: EncodedValue, _ old: Value) -> Bool {
        switch (new.resolved, old) {
        case (.scalar(let a), .Scalar(let b)):
            return Primitive.same(a, b)
        case (.counter(let counter), .Scalar(.Counter(let value))):
            return Int64(counter.value) == value
        case (.map(let map), .Object(let id, .Map)):
            guard let entries = try? doc.mapEntries(obj: id), entries.count == map.keys.count else { return false }
            for (key, value) in entries {
                guard let child = map.values[key], matches(child, value) else { return false }
            }
            return true
        case (.list(let list), .Object(let id, .List)):
            guard let values = try? doc.values(obj: id), values.count == list.items.count else { return false }
            return zip(list.items, values).allSatisfy { matches($0, $1) }
        case (.text(let text), .Object(let id, .Text)):
            guard let current = try? doc.text(obj: id) else { return false }
            return current.utf8.elementsEqual(text.value.utf8)
        default:
            return false
        }
    }

    /// Whether old element `oldIndex` equals new element `newIndex`, through
    /// cached snapshots: the alignment search compares the same elements many times.
    func same(_ oldIndex: Int, _ newIndex: Int) -> Bool {
        // Scalars compare directly, without building snapshots.
        if case .Scalar(let a) = old[oldIndex] {
            if case .scalar(let b) = new[newIndex] { return Primitive.same(a, b) }
            if case .counter = new[newIndex] {} else { return false }
        }
        let (oldHash, oldSnapshot) = oldEntry(oldIndex)
        let (newHash, newSnapshot) = newEntry(newIndex)
        return oldHash == newHash && oldSnapshot == newSnapshot
    }

    private func oldEntry(_ index: Int) -> (Int, CodableSnapshot?) {
        if let cached = oldCache[index] { return cached }
        let snapshot = try? CodableSnapshot(old[index], in: doc)
        let entry = (snapshot?.hashValue ?? 0, snapshot)
        oldCache[index] = entry
        return entry
    }

    private func newEntry(_ index: Int) -> (Int, CodableSnapshot) {
        if let cached = newCache[index] { return cached }
        let snapshot = CodableSnapshot(new[index])
        let entry = (snapshot.hashValue, snapshot)
        newCache[index] = entry
        return entry
    }
}

/// Turns an alignment into list edits. Between two kept elements, deleted
/// old elements and inserted new ones are paired in order and updated in
/// place (when they are the same kind of value); the rest become one
/// deletion and one insertion.
struct ListPlanBuilder {
    let planner: SchemaPlanner
    let obj: ObjId
    let old: [Value]
    let new: [EncodedValue]
    let path: [any CodingKey]
    var edits: [ListEdit] = []
    var pendingDeletes: [Int] = []
    var pendingInserts: [Int] = []
    /// Where the next edit applies, in the list as the edits so far leave it.
    private var cursor: UInt64 = 0

    init(planner: SchemaPlanner, obj: ObjId, old: [Value], new: [EncodedValue], path: [any CodingKey]) {
        self.planner = planner
        self.obj = obj
        self.old = old
        self.new = new
        self.path = path
    }

    /// An element that stays: only bound types inside it may need binding.
    mutating func keep(old oldIndex: Int, new newIndex: Int) throws {
        try flush()
        if new[newIndex].containsBoundTypes { try update(old: oldIndex, new: newIndex) }
        cursor += 1
    }

    /// Emits the pending deletions and insertions.
    mutating func flush() throws {
        let pairs = min(pendingDeletes.count, pendingInserts.count)
        for pair in 0..<pairs {
            let (o, n) = (pendingDeletes[pair], pendingInserts[pair])
            if Self.pairable(old[o], new[n]) {
                try update(old: o, new: n)
            } else {
                try delete(o)
                try insert(n)
            }
            cursor += 1
        }
        for o in pendingDeletes.dropFirst(pairs) { try delete(o) }
        for n in pendingInserts.dropFirst(pairs) {
            try insert(n)
            cursor += 1
        }
        pendingDeletes.removeAll(keepingCapacity: true)
        pendingInserts.removeAll(keepingCapacity: true)
    }

    private func elementPath(_ index: Int) -> [any CodingKey] { path + [AnyCodingKey(UInt64(index))] }

    private mutating func update(old o: Int, new n: Int) throws {
        let slot = ValueSlot.index(obj, UInt64(o))
        var action = try planner.plan(new[n], existing: old[o], slot: slot, path: elementPath(n))
        if action == nil, UInt64(o) != cursor, case .counter(let counter) = new[n].resolved,
           !counter.isBound(toOtherThan: planner.doc) {
            // A counter element that moved: rebind it to its new index.
            action = .counter(delta: 0, bind: counter)
        }
        if let action { edits.append(.update(index: cursor, action)) }
    }

    private mutating func delete(_ o: Int) throws {
        try planner.checkRemovable(old[o], at: elementPath(o))
        if case .delete(let index, let count)? = edits.last, index == cursor {
            edits[edits.count - 1] = .delete(index: index, count: count + 1)
        } else {
            edits.append(.delete(index: cursor, count: 1))
        }
    }

    private mutating func insert(_ n: Int) throws {
        try planner.checkCreatable(new[n], at: elementPath(n))
        if case .insert(let index, var values)? = edits.last, index + UInt64(values.count) == cursor {
            edits.removeLast()
            values.append(new[n])
            edits.append(.insert(index: index, values: values))
        } else {
            edits.append(.insert(index: cursor, values: [new[n]]))
        }
    }

    /// Whether an old element can be updated in place into a new one.
    static func pairable(_ old: Value, _ new: EncodedValue) -> Bool {
        switch (old, new) {
        case (.Scalar(.Null), _), (_, .scalar(.Null)): return true
        case (.Scalar, .scalar), (.Scalar, .counter): return true
        case (.Object(_, .Map), .map), (.Object(_, .List), .list), (.Object(_, .Text), .text): return true
        case (.Object(_, .Text), .scalar(.String)): return true
        default: return false
        }
    }
}

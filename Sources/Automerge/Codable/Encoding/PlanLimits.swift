/// Checks a plan against the two limits the document enforces as it writes
/// (the op counter limit and ``OpSet/maxDepth``), before the plan is
/// written: the planner has checked everything else, so a plan that passes
/// is written in full, and one that does not leaves the document untouched.
///
/// The op count is an upper bound (a text update counts every unit of the
/// old text and every UTF-8 byte of the new one), so an encode can be
/// refused near the op counter limit although its exact ops would fit;
/// reaching that limit at all takes a hostile document.
struct PlanLimits {
    let doc: Document
    private(set) var ops: UInt64 = 0
    private var depths: [ObjId: Int] = [:]

    init(doc: Document) {
        self.doc = doc
    }

    /// Throws unless the counted ops fit below the op counter limit.
    func check() throws(AutomergeError) {
        guard ops <= doc.locked({ $0.opCountersLeft }) else { throw .opCounterOverflow }
    }

    /// Counts the writes of `action` to a slot of `container`.
    mutating func count(_ action: SlotAction, in container: ObjId) throws(AutomergeError) {
        switch action {
        case .put:
            ops += 1
        case .create(let value):
            try count(creating: value, in: container, along: 0)
        case .map(let plan):
            for (_, update) in plan.updates { try count(update, in: plan.obj) }
            ops += UInt64(plan.deletions.count)
        case .list(let plan):
            for edit in plan.edits {
                switch edit {
                case .delete(_, let count): ops += count.magnitude
                case .insert(_, let values): for value in values { try self.count(creating: value, in: plan.obj, along: 0) }
                case .update(_, let update): try count(update, in: plan.obj)
                }
            }
        case .text(let id, let newValue, _):
            if let newValue { ops += doc.length(obj: id) + UInt64(newValue.utf8.count) }
        case .counter(let delta, _):
            if delta != 0 { ops += 1 }
        }
    }

    /// Counts the creation of `value` in a slot of `container`, below
    /// `containers` new containers made first (an encode along a path
    /// that does not exist yet), and checks how deep its objects nest.
    mutating func count(creating value: EncodedValue, in container: ObjId, along containers: Int) throws(AutomergeError) {
        ops += UInt64(containers)
        let levels = containers + Self.levels(of: value)
        guard levels > 0 else {
            ops += Self.ops(creating: value)
            return
        }
        let depth: Int
        if let known = depths[container] {
            depth = known
        } else {
            depth = try doc.locked { state throws(AutomergeError) in
                let handle = try state.handle(container)
                return state.ops.withObject(at: handle.index) { $0.pointee.depth }
            }
            depths[container] = depth
        }
        guard depth + levels <= OpSet.maxDepth else { throw .invalidChange("objects nested more than \(OpSet.maxDepth) deep") }
        ops += Self.ops(creating: value)
    }

    /// How many levels of objects `value` makes (0 for a scalar or counter).
    static func levels(of value: EncodedValue) -> Int {
        switch value.resolved {
        case .scalar, .counter, .deferred: return 0
        case .text: return 1
        case .map(let map): return 1 + (map.entries.map { levels(of: $0.value) }.max() ?? 0)
        case .list(let list): return 1 + (list.resolvedItems.map(levels(of:)).max() ?? 0)
        }
    }

    /// At most how many ops creating `value` makes.
    static func ops(creating value: EncodedValue) -> UInt64 {
        switch value.resolved {
        case .scalar, .counter: return 1
        case .deferred: return 0
        case .text(let text): return 1 + UInt64(text.value.utf8.count)
        case .map(let map): return map.entries.reduce(1) { $0 + ops(creating: $1.value) }
        case .list(let list): return list.resolvedItems.reduce(1) { $0 + ops(creating: $1) }
        }
    }
}

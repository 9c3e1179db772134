/// The writes that make one slot of the document match the model, decided
/// before anything is written so that a schema error leaves the document untouched.
indirect enum SlotAction {
    /// Write a scalar.
    case put(ScalarValue)
    /// Create the value from scratch (a new object, a new counter), replacing what is there.
    case create(EncodedValue)
    /// Update an existing map in place.
    case map(MapPlan)
    /// Update an existing list in place.
    case list(ListPlan)
    /// Bring an existing Text object to `newValue` with minimal splices (nil:
    /// already equal), then bind `bind` to it.
    case text(ObjId, newValue: String?, bind: AutomergeText?)
    /// Add `delta` to an existing counter, then bind `bind` to it.
    case counter(delta: Int64, bind: Counter?)
}

/// Changes to one existing map, in model key order, then deletions.
struct MapPlan {
    let obj: ObjId
    var updates: [(key: String, action: SlotAction)] = []
    var deletions: [String] = []

    var isEmpty: Bool { updates.isEmpty && deletions.isEmpty }
}

/// Changes to one existing list. Each edit's index is where it applies once
/// the edits before it have been applied.
struct ListPlan {
    let obj: ObjId
    var edits: [ListEdit] = []
}

/// One step of a ``ListPlan``.
enum ListEdit {
    /// Remove `count` elements at `index`.
    case delete(index: UInt64, count: Int64)
    /// Insert new elements at `index`.
    case insert(index: UInt64, values: [EncodedValue])
    /// Change the element at `index` in place.
    case update(index: UInt64, SlotAction)
}

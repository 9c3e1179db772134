/// A change to a document's visible state, for updating a view without
/// re-reading the whole document.
public struct Patch: Equatable, Sendable {
    /// What happened.
    public let action: PatchAction
    /// The path from the root to the object the action applies to.
    public let path: [PathElement]

    /// A patch.
    public init(action: PatchAction, path: [PathElement]) {
        self.action = action
        self.path = path
    }
}

/// A range of deleted list elements or text units.
public struct DeleteSeq: Equatable, Sendable {
    /// The list or text.
    public let obj: ObjId
    /// The first deleted index.
    public let index: UInt64
    /// How many elements or units were deleted.
    public let length: UInt64

    /// A deleted range.
    public init(obj: ObjId, index: UInt64, length: UInt64) {
        self.obj = obj
        self.index = index
        self.length = length
    }
}

/// What a patch does. Indices assume the patches are applied in order.
public enum PatchAction: Equatable, Sendable {
    /// A key or index now has this value.
    case Put(ObjId, Prop, Value)
    /// Values were inserted into a list at an index.
    case Insert(obj: ObjId, index: UInt64, values: [Value])
    /// Text was inserted at an index, with the marks that cover it.
    case SpliceText(obj: ObjId, index: UInt64, value: String, marks: [String: Value])
    /// A counter changed by an amount.
    case Increment(ObjId, Prop, Int64)
    /// A key or index now has concurrent values.
    case Conflict(ObjId, Prop)
    /// A map key was removed.
    case DeleteMap(ObjId, String)
    /// A range of a list or text was removed.
    case DeleteSeq(DeleteSeq)
    /// Marks changed over ranges of a text.
    case Marks(ObjId, [Mark])
}

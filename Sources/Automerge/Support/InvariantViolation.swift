/// The facts that the library's structures (the op set's, Support's
/// tables) keep between operations, which their fast paths rely on
/// without checking. ``OpSet/checkInvariants()``
/// verifies them all; a test names the one it expects broken.
enum Invariant: String, Sendable {
    // MARK: Sequence trees

    case bulkLoadFinished = "after loading, the id index and the widths are maintained again"
    case rootIsTop = "the root is a node without a parent"
    case nodeReachedOnce = "each node has one place in the tree"
    case everyNodeReachable = "every node is reachable from the root"
    case leafShape = "a leaf holds at most maxLeafElements elements and no children"
    case innerNodeShape = "an inner node holds 1 to maxChildren children and no elements"
    case childKnowsParent = "a child's parent link names the node that holds it"
    case leavesAtOneDepth = "all leaves are at the same depth"
    case nodeUnitsAreSums = "a node's width is the sum of its elements' or its children's"
    case nodeMinimumIsLeast = "a node's minimum id is the least id of the elements under it"
    case elementUnitsMatchValue = "an element's recorded width is that of its winning op"
    case leafChainInOrder = "the next links visit every leaf in tree order, from the first leaf"
    case elementIdsUnique = "no element id appears twice"
    case insertKeyStored = "an element's insert key is kept once: packed in the element, or by the tree if its actor index needs more than 16 bits"
    case insertKeyPrecedesElement = "an element comes after the element its insert op went after"
    case leafIndexMapsElements = "the leaf index maps each element to the leaf holding it"
    case leafIndexCount = "the leaf index holds one entry per element"
    case leafIndexConsistent = "the leaf index's own invariants hold"

    // MARK: Op id tables

    case opIdTableSound = "an op id table's counts, budgets and probe sequences agree with its entries"
    case elementCount = "the element count is the number of elements in the leaves"
    case markCount = "the mark count is the number of mark anchors"
    case lastInsertedInBounds = "the last-insert cache names an element of a leaf once anything was inserted"

    // MARK: Map key tables

    case tableShape = "tags and positions are parallel arrays whose size is 0 or a power of two"
    case tableLoadFactor = "the table is at most half full"
    case slotPerKey = "each key position is in exactly one slot"
    case tagMatchesHash = "a slot's tag is the tag of its key's hash"
    case keyFindable = "a key's slot is reached from its hash's home slot without crossing an empty slot"

    // MARK: Map entries

    case keyCount = "the key table has one entry per key"
    case hashMatchesKey = "the table keeps each key's own hash"
    case keyAtItsPosition = "a lookup of each key finds its own position"

    // MARK: Objects and ops

    case rootObjectFirst = "the root map is the first object, with no key in a parent"
    case objectFindable = "each object's id resolves to its position in the object table"
    case parentPrecedesObject = "an object's parent is earlier in the object table, one level shallower"
    case keyInParentHoldsMakeOp = "the op that made an object is at the object's key in its parent"
    case contentsMatchKind = "a sequence measures by its kind and the document's encoding"
    case bodyPerObject = "each object names a map or sequence body of its kind that no other object names, and each body has an object"
    case opIdKnown = "every op id has a known actor index and a counter from 1 to maxOp"
    case opsSorted = "the ops of a key or element, and each op's successors, are sorted by op id"
    case opStoredUnderItsKey = "a stored op has the key it is stored under, and no stored op is a delete"
}

/// A broken ``Invariant``: where, and the values that break it. Nothing in
/// normal operation throws it; it means a bug (or a test that corrupted a
/// structure on purpose).
struct InvariantViolation: Error, CustomStringConvertible, Sendable {
    let invariant: Invariant
    /// The structure, outermost first ("object 3@1 (text, at 2) > sequence
    /// tree"); empty for a fact of the op set itself.
    let structure: String
    /// The values that break the invariant.
    let detail: String

    var description: String { "\(structure.isEmpty ? "op set" : structure): \(invariant.rawValue); \(detail)" }

    /// The same violation, found inside `outer`.
    func within(_ outer: String) -> InvariantViolation {
        InvariantViolation(invariant: invariant, structure: structure.isEmpty ? outer : "\(outer) > \(structure)", detail: detail)
    }
}

extension OpId {
    /// "counter@actor index", as invariant reports name ops.
    var label: String { "\(counter)@\(actor)" }
}

/// A structure that can verify its own invariants.
///
protocol InvariantChecked {
    /// Throws an error naming the first broken invariant found.
    func checkInvariants() throws
}

#if DEBUG
/// The switch for checking a document's invariants after every call on it,
/// for tests. Debug builds only (release builds have no switch and no
/// checks), and only in a task that sets ``onViolation``; otherwise the
/// checks cost nothing.
enum InvariantChecks {
    /// What a check that finds a broken invariant calls (a test records an
    /// issue); nil, the default, turns the checks off.
    @TaskLocal static var onViolation: (@Sendable (InvariantViolation) -> Void)?
}
#endif

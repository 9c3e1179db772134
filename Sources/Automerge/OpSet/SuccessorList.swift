/// The successors of one op, sorted by op id.
///
/// Most ops have none, and nearly every op that has any has one: the delete
/// or put that overwrote it. That one is kept inline, so deleting a text
/// character allocates nothing (an array per deleted element was a fifth of
/// a loaded editing trace's memory and a malloc per delete). Two or more
/// successors, or any increment (whose amount needs a field), use an array.
struct SuccessorList: Sendable, Equatable {
    private enum Storage: Sendable, Equatable {
        case none
        case one(OpId)
        /// Segmented: a peer choosing the actors of concurrent overwrites
        /// of one op chooses where each sorts (see ``SegmentedArray``).
        case many(SegmentedArray<Successor>)
    }

    private var storage: Storage = .none

    init() {}

    /// A list holding one successor that is not an increment.
    init(only id: OpId) { storage = .one(id) }

    /// A list holding `successors`, which must be sorted by op id.
    init(sorted successors: [Successor]) {
        switch successors.count {
        case 0: storage = .none
        case 1 where successors[0].increment == nil: storage = .one(successors[0].id)
        default: storage = .many(SegmentedArray(successors))
        }
    }

    /// Inserts `successor` at its place in op id order.
    mutating func insert(_ successor: Successor, actors: ActorTable) {
        switch storage {
        case .none:
            storage = successor.increment == nil ? .one(successor.id) : .many(SegmentedArray([successor]))
        case .one(let existing):
            let first = Successor(id: existing)
            storage = .many(SegmentedArray(actors.precedes(successor.id, existing) ? [successor, first] : [first, successor]))
        case .many(var list):
            storage = .none  // drop the enum's reference so the array is uniquely held and grows in place
            // Successors mostly arrive in id order (the increments of a
            // counter, one after another): append; else a binary search, so
            // that n successors of one op never cost n².
            if let last = list.last, actors.precedes(last.id, successor.id) {
                list.append(successor)
            } else {
                var (low, high) = (0, list.count)
                while low < high {
                    let middle = (low + high) / 2
                    if actors.precedes(list[middle].id, successor.id) { low = middle + 1 } else { high = middle }
                }
                list.insert(successor, at: low)
            }
            storage = .many(list)
        }
    }
}

extension SuccessorList: RandomAccessCollection {
    var startIndex: Int { 0 }

    var endIndex: Int {
        switch storage {
        case .none: return 0
        case .one: return 1
        case .many(let list): return list.count
        }
    }

    subscript(position: Int) -> Successor {
        switch storage {
        case .none: preconditionFailure("index out of range")
        case .one(let id):
            precondition(position == 0, "index out of range")
            return Successor(id: id)
        case .many(let list): return list[position]
        }
    }

    var isEmpty: Bool {
        if case .none = storage { return true }
        return false
    }

    /// The one successor, if the list holds exactly one that is not an
    /// increment (a delete or an overwrite); nil otherwise.
    @inline(__always)
    var onlyNonIncrement: OpId? {
        switch storage {
        case .one(let id): return id
        case .many(let list): return list.count == 1 && list[0].increment == nil ? list[0].id : nil
        case .none: return nil
        }
    }

    var count: Int { endIndex }

    /// The most successors an insert into this list shifts.
    var longestRun: Int {
        if case .many(let list) = storage { return list.longestRun }
        return count
    }

    /// Calls `body` with each successor's op id in order, without the
    /// index-by-index switch over the storage that iterating would do.
    @inline(__always)
    func forEachId(_ body: (OpId) -> Void) {
        switch storage {
        case .none: break
        case .one(let id): body(id)
        case .many(let list): list.forEachElement { body($0.id) }
        }
    }

    /// Whether `id` is one of the successors.
    func contains(_ id: OpId) -> Bool {
        switch storage {
        case .none: return false
        case .one(let only): return only == id
        case .many(let list): return list.contains { $0.id == id }
        }
    }

    /// Whether every successor is an increment (true when there are none).
    var allIncrements: Bool {
        switch storage {
        case .none: return true
        case .one: return false
        case .many(let list): return list.allSatisfy { $0.increment != nil }
        }
    }
}

/// The predecessors (change chunk) or successors (document chunk) of a
/// stored op, in the order stored.
///
/// Nearly every op has none or one, so a single id is held inline. As an
/// array, each deleted character of a loaded document cost a heap block of
/// its own: slower to decode, and freed heap that glibc kept mapped after
/// the load.
struct StoredOpIdList: Hashable, Sendable {
    private enum Storage: Hashable, Sendable {
        case empty
        case one(StoredOpId)
        case many([StoredOpId])
    }

    private var storage: Storage

    init() { storage = .empty }

    init(_ ids: some Sequence<StoredOpId>) {
        self.init()
        for id in ids { append(id) }
    }

    mutating func append(_ id: StoredOpId) {
        switch storage {
        case .empty: storage = .one(id)
        case .one(let first): storage = .many([first, id])
        case .many(var ids):
            storage = .empty  // keeps `ids` uniquely referenced while it grows
            ids.append(id)
            storage = .many(ids)
        }
    }
}

extension StoredOpIdList: RandomAccessCollection, MutableCollection {
    var startIndex: Int { 0 }

    var endIndex: Int {
        switch storage {
        case .empty: 0
        case .one: 1
        case .many(let ids): ids.count
        }
    }

    subscript(position: Int) -> StoredOpId {
        get {
            switch storage {
            case .empty: preconditionFailure("index out of range")
            case .one(let id):
                precondition(position == 0, "index out of range")
                return id
            case .many(let ids): return ids[position]
            }
        }
        set {
            switch storage {
            case .empty: preconditionFailure("index out of range")
            case .one:
                precondition(position == 0, "index out of range")
                storage = .one(newValue)
            case .many(var ids):
                storage = .empty
                ids[position] = newValue
                storage = .many(ids)
            }
        }
    }
}

extension StoredOpIdList: ExpressibleByArrayLiteral {
    init(arrayLiteral ids: StoredOpId...) { self.init(ids) }
}

extension StoredOpIdList: CustomStringConvertible {
    var description: String { Array(self).description }
}

import Automerge

/// Finds a document's conflicts: map keys holding concurrent values (two
/// writers set the field without seeing each other's value). Maps inside
/// lists are searched too; list elements themselves are not reported.
enum ConflictScan {
    /// A conflicted field: where it is and its values, the winner first
    /// (the one reads return), the others in a fixed order.
    struct Alternatives {
        var path: [BodyPath]
        var values: [BodyValue]
    }

    static func hasConflicts(_ document: Document) throws -> Bool {
        !(try conflicts(in: document, limit: 1)).isEmpty
    }

    /// The conflicted fields as (map, key), up to `limit`.
    static func conflicts(in document: Document, limit: Int = .max) throws -> [(ObjId, String)] {
        var found: [(ObjId, String)] = []
        var stack: [ObjId] = [.ROOT]
        while let map = stack.popLast(), found.count < limit {
            for key in document.keys(obj: map) {
                let values = try document.getAll(obj: map, key: key)
                if values.count > 1 { found.append((map, key)) }
                for value in values { collect(value, in: document, into: &stack) }
            }
        }
        return found
    }

    static func alternatives(in document: Document) throws -> [Alternatives] {
        try conflicts(in: document).map { map, key in
            let winner = try document.get(obj: map, key: key)
            var others: [BodyValue] = []
            for value in try document.getAll(obj: map, key: key) where value != winner {
                others.append(try BodyReader.read(value, in: document))
            }
            let first = try winner.map { try BodyReader.read($0, in: document) } ?? .null
            return Alternatives(path: try path(to: map, in: document) + [.key(key)],
                                values: [first] + others.sorted { $0.description < $1.description })
        }
    }

    /// The path from the root to an object.
    static func path(to object: ObjId, in document: Document) throws -> [BodyPath] {
        try document.path(obj: object).map { element in
            switch element.prop {
            case .Key(let key): return .key(key)
            case .Index(let index): return .index(Int(index))
            }
        }
    }

    /// Maps inside `value` to scan (lists are searched for the maps they hold).
    private static func collect(_ value: Value, in document: Document, into stack: inout [ObjId]) {
        switch value {
        case .Object(let id, .Map): stack.append(id)
        case .Object(let id, .List):
            for element in (try? document.values(obj: id)) ?? [] { collect(element, in: document, into: &stack) }
        default: break
        }
    }
}

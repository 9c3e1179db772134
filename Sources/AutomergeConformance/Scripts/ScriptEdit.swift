import Automerge

/// The edit steps of a script, as calls of the automerge-swift API.
enum ScriptEdit {
    static func apply(_ action: EditScript.Action, to document: Document) throws {
        switch action {
        case .put(let path, .key(let key), let value): try document.put(obj: object(path, in: document), key: key, value: value)
        case .put(let path, .index(let index), let value):
            try document.put(obj: object(path, in: document), index: index, value: value)
        case .putObject(let path, .key(let key), let type): _ = try document.putObject(obj: object(path, in: document), key: key, ty: type)
        case .putObject(let path, .index(let index), let type):
            _ = try document.putObject(obj: object(path, in: document), index: index, ty: type)
        case .insert(let path, let index, let value): try document.insert(obj: object(path, in: document), index: index, value: value)
        case .insertObject(let path, let index, let type):
            _ = try document.insertObject(obj: object(path, in: document), index: index, ty: type)
        case .delete(let path, .key(let key)): try document.delete(obj: object(path, in: document), key: key)
        case .delete(let path, .index(let index)): try document.delete(obj: object(path, in: document), index: index)
        case .increment(let path, .key(let key), let by): try document.increment(obj: object(path, in: document), key: key, by: by)
        case .increment(let path, .index(let index), let by):
            try document.increment(obj: object(path, in: document), index: index, by: by)
        case .splice(let path, let index, let delete, let values):
            try document.splice(obj: object(path, in: document), start: index, delete: delete, values: values)
        case .spliceText(let path, let index, let delete, let text):
            try document.spliceText(obj: object(path, in: document), start: index, delete: delete, value: text)
        case .updateText(let path, let text): try document.updateText(obj: object(path, in: document), value: text)
        case .mark(let path, let start, let end, let name, let value, let expand):
            try document.mark(obj: object(path, in: document), start: start, end: end, expand: expand, name: name, value: value)
        case .unmark(let path, let start, let end, let name, let expand):
            // Rust's unmark is a mark whose value is null.
            try document.mark(obj: object(path, in: document), start: start, end: end, expand: expand, name: name, value: .Null)
        case .commit, .fork, .merge, .save, .load:
            preconditionFailure("\(action.name) is not an edit")
        }
    }

    /// The object `path` reaches from the root, reading the document as it is now.
    static func object(_ path: [EditScript.PathElement], in document: Document) throws -> ObjId {
        var current = ObjId.ROOT
        for (depth, element) in path.enumerated() {
            let value: Value?
            switch element {
            case .key(let key): value = try document.get(obj: current, key: key)
            case .index(let index): value = try document.get(obj: current, index: index)
            }
            guard case .Object(let id, _) = value else {
                throw EditScriptError(step: nil, "obj \(describe(path.prefix(depth + 1))) is \(value == nil ? "absent" : "not an object")")
            }
            current = id
        }
        return current
    }

    static func describe(_ path: ArraySlice<EditScript.PathElement>) -> String {
        "[" + path.map {
            switch $0 {
            case .key(let key): "\"\(key)\""
            case .index(let index): "\(index)"
            }
        }.joined(separator: ", ") + "]"
    }
}

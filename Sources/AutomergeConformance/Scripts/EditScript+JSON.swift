import Automerge
import Foundation

extension EditScript {
    /// Reads a script from its JSON form (`Vectors/README.md`, "Edit scripts").
    public init(json: JSONValue) throws(EditScriptError) {
        let top = try ScriptFields(json, step: nil, what: "a script")
        description = try top.optionalString("description") ?? ""
        peers = try top.array("peers").map { value throws(EditScriptError) in
            let fields = try ScriptFields(value, step: nil, what: "a peer")
            return Peer(name: try fields.string("name"), actor: try fields.actor("actor"), time: try fields.int64("time"))
        }
        guard !peers.isEmpty else { throw EditScriptError(step: nil, "a script needs at least one peer") }
        guard Set(peers.map { ExactString($0.name) }).count == peers.count else { throw EditScriptError(step: nil, "two peers have one name") }
        var steps: [Step] = []
        for (offset, value) in try top.array("steps").enumerated() {
            steps.append(try Step(json: value, number: offset + 1))
        }
        self.steps = steps
        result = try top.optionalString("result")
        expected = try top.value("expected").map { value throws(EditScriptError) in
            let fields = try ScriptFields(value, step: nil, what: "expected")
            return Expected(heads: try fields.hashes("heads"), changes: try fields.hashes("changes"),
                            dump: try fields.required("dump"))
        }
    }

    /// Reads a script from JSON text.
    public init(bytes: [UInt8]) throws(EditScriptError) {
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch { throw EditScriptError(step: nil, error.description) }
        try self.init(json: json)
    }

    /// The JSON form, `expected` included when set.
    public var json: JSONValue {
        var object: JSONObject = [
            "description": .string(description),
            "peers": .array(peers.map {
                .object(["name": .string($0.name), "actor": .string(Bytes.hex($0.actor)), "time": .number(String($0.time))])
            }),
            "steps": .array(steps.map(\.json)),
        ]
        if let result { object["result"] = .string(result) }
        if let expected {
            object["expected"] = .object([
                "heads": .array(expected.heads.map { .string($0.description) }),
                "changes": .array(expected.changes.map { .string($0.description) }),
                "dump": expected.dump,
            ])
        }
        return .object(object)
    }
}

extension EditScript.Step {
    init(json: JSONValue, number: Int) throws(EditScriptError) {
        let f = try ScriptFields(json, step: number, what: "a step")
        peer = try f.optionalString("peer")
        let actionName = try f.string("action")
        switch actionName {
        case "put": action = .put(obj: try f.path(), at: try f.place(), value: try f.scalar("value"))
        case "putObject": action = .putObject(obj: try f.path(), at: try f.place(), type: try f.objectType())
        case "insert": action = .insert(obj: try f.path(), index: try f.uint64("index"), value: try f.scalar("value"))
        case "insertObject": action = .insertObject(obj: try f.path(), index: try f.uint64("index"), type: try f.objectType())
        case "delete": action = .delete(obj: try f.path(), at: try f.place())
        case "increment": action = .increment(obj: try f.path(), at: try f.place(), by: try f.int64("by"))
        case "splice":
            let values = try f.array("values").map { value throws(EditScriptError) in try f.scalar(value) }
            action = .splice(obj: try f.path(), index: try f.uint64("index"), delete: try f.int64("delete"), values: values)
        case "spliceText":
            action = .spliceText(obj: try f.path(), index: try f.uint64("index"), delete: try f.int64("delete"),
                                 text: try f.string("text"))
        case "updateText": action = .updateText(obj: try f.path(), text: try f.string("text"))
        case "mark":
            action = .mark(obj: try f.path(), start: try f.uint64("start"), end: try f.uint64("end"), name: try f.string("name"),
                           value: try f.scalar("value"), expand: try f.expand())
        case "unmark":
            action = .unmark(obj: try f.path(), start: try f.uint64("start"), end: try f.uint64("end"),
                             name: try f.string("name"), expand: try f.expand())
        case "commit": action = .commit(message: try f.optionalString("message"), time: try f.optionalInt64("time"))
        case "fork": action = .fork(as: try f.string("as"), actor: try f.actor("actor"))
        case "merge": action = .merge(from: try f.string("from"))
        case "save": action = .save(into: try f.string("into"))
        case "load": action = .load(from: try f.string("from"), actor: try f.actor("actor"))
        default: throw EditScriptError(step: number, "unknown action '\(actionName)'")
        }
    }

    /// The JSON form.
    public var json: JSONValue {
        var o: JSONObject = ["action": .string(action.name)]
        if let peer { o["peer"] = .string(peer) }
        func number<T: BinaryInteger>(_ value: T) -> JSONValue { .number(String(value)) }
        func put(_ path: [EditScript.PathElement]) {
            o["obj"] = .array(path.map {
                switch $0 {
                case .key(let key): .string(key)
                case .index(let index): number(index)
                }
            })
        }
        func put(_ place: EditScript.Place) {
            switch place {
            case .key(let key): o["key"] = .string(key)
            case .index(let index): o["index"] = number(index)
            }
        }
        switch action {
        case .put(let obj, let at, let value): put(obj); put(at); o["value"] = ScriptScalar.json(value)
        case .putObject(let obj, let at, let type): put(obj); put(at); o["type"] = .string(ScriptScalar.name(of: type))
        case .insert(let obj, let index, let value): put(obj); o["index"] = number(index); o["value"] = ScriptScalar.json(value)
        case .insertObject(let obj, let index, let type):
            put(obj); o["index"] = number(index); o["type"] = .string(ScriptScalar.name(of: type))
        case .delete(let obj, let at): put(obj); put(at)
        case .increment(let obj, let at, let by): put(obj); put(at); o["by"] = number(by)
        case .splice(let obj, let index, let delete, let values):
            put(obj); o["index"] = number(index); o["delete"] = number(delete); o["values"] = .array(values.map(ScriptScalar.json))
        case .spliceText(let obj, let index, let delete, let text):
            put(obj); o["index"] = number(index); o["delete"] = number(delete); o["text"] = .string(text)
        case .updateText(let obj, let text): put(obj); o["text"] = .string(text)
        case .mark(let obj, let start, let end, let name, let value, let expand):
            put(obj); o["start"] = number(start); o["end"] = number(end); o["name"] = .string(name)
            o["value"] = ScriptScalar.json(value); o["expand"] = .string(ScriptScalar.name(of: expand))
        case .unmark(let obj, let start, let end, let name, let expand):
            put(obj); o["start"] = number(start); o["end"] = number(end); o["name"] = .string(name)
            o["expand"] = .string(ScriptScalar.name(of: expand))
        case .commit(let message, let time):
            if let message { o["message"] = .string(message) }
            if let time { o["time"] = number(time) }
        case .fork(let name, let actor): o["as"] = .string(name); o["actor"] = .string(Bytes.hex(actor))
        case .merge(let from): o["from"] = .string(from)
        case .save(let into): o["into"] = .string(into)
        case .load(let from, let actor): o["from"] = .string(from); o["actor"] = .string(Bytes.hex(actor))
        }
        return .object(o)
    }
}

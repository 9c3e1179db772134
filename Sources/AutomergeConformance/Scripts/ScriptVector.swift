import Automerge
import Foundation

/// One edit-script vector: a script (with its expected heads, change hashes
/// and dump) and the uncompressed save its result must be.
public struct ScriptVector: Sendable {
    /// Unique name, `category/short-name`.
    public var name: String
    /// The group the report counts it in.
    public var category: String
    /// What the script exercises.
    public var exercises: String
    /// The script, relative to the vectors directory.
    public var file: String
    /// The expected uncompressed save, relative to the vectors directory.
    public var save: String

    var manifestEntry: JSONValue {
        .object(["name": .string(name), "category": .string(category), "exercises": .string(exercises),
                 "file": .string(file), "save": .string(save)])
    }

    init(name: String, category: String, exercises: String, file: String, save: String) {
        self.name = name
        self.category = category
        self.exercises = exercises
        self.file = file
        self.save = save
    }

    init(entry: JSONValue) throws {
        guard case .object(let m) = entry else { throw VectorError.badManifest("a script vector is not an object") }
        func string(_ key: String) throws -> String {
            guard case .string(let s)? = m[key] else { throw VectorError.badManifest("a script vector lacks \(key)") }
            return s
        }
        self.init(name: try string("name"), category: try string("category"), exercises: try string("exercises"),
                  file: try string("file"), save: try string("save"))
    }
}

/// Collects script vectors: runs each script here, records what it gives
/// and checks that its JSON form reads back as the same script.
struct ScriptVectorBuilder {
    var files: [String: [UInt8]] = [:]
    var vectors: [ScriptVector] = []
    private var names: Set<String> = []

    mutating func add(_ category: String, _ name: String, _ script: EditScript) throws {
        let fullName = "\(category)/\(name)"
        guard names.insert(fullName).inserted else { throw VectorError.generator("duplicate script name \(fullName)") }
        var script = script
        let document = try EditScriptRunner.run(script)
        script.expected = EditScriptRunner.expected(of: document)
        let text = ScriptText.pretty(script.json)
        let reread = try EditScript(bytes: Array(text.utf8))
        guard reread.json == script.json else { throw VectorError.generator("\(fullName) does not read back as written") }
        let base = "scripts/\(category)/\(name)"
        files[base + ".json"] = Array(text.utf8)
        files[base + ".automerge"] = [UInt8](document.save(compress: false))
        vectors.append(ScriptVector(name: fullName, category: category, exercises: script.description,
                                    file: base + ".json", save: base + ".automerge"))
    }
}

/// A script's JSON laid out for reading and diffs: one member per line,
/// one step per line.
enum ScriptText {
    static func pretty(_ json: JSONValue) -> String {
        guard case .object(let members) = json else { return json.serialized + "\n" }
        let order = ["description", "peers", "steps", "result", "expected"]
        let known = Set(order.map { ExactString($0) })
        let keys = order.filter { members[$0] != nil } + members.sortedByKey.map(\.key).filter { !known.contains(ExactString($0)) }
        let lines = keys.map { key -> String in
            let value = members[key]!
            let name = JSONValue.string(key).serialized
            switch (key, value) {
            case ("steps", .array(let steps)), ("peers", .array(let steps)):
                guard !steps.isEmpty else { return "  \(name): []" }
                return "  \(name): [\n" + steps.map { "    " + $0.serialized }.joined(separator: ",\n") + "\n  ]"
            case ("expected", .object(let expected)):
                let inner = expected.sortedByKey.map { "    \(JSONValue.string($0.key).serialized): \($0.value.serialized)" }
                return "  \(name): {\n" + inner.joined(separator: ",\n") + "\n  }"
            default:
                return "  \(name): \(value.serialized)"
            }
        }
        return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
    }
}

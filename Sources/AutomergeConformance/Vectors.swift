import Automerge
import Foundation

/// One conformance vector: a file, and what a reader must make of it.
public struct Vector: Sendable {
    /// What a reader must make of the file.
    public enum Expectation: String, Sendable {
        /// It must load, with the recorded dump.
        case valid
        /// It must be rejected.
        case invalid
        /// The format specification forbids it, but the reference
        /// implementation (Rust automerge 0.11) loads it: a reader may reject
        /// it, or load it and read the recorded dump (the reference's reading).
        case either
    }

    /// Unique name, `category/short-name`.
    public var name: String
    /// The group the report counts it in.
    public var category: String
    public var expect: Expectation
    /// What the vector exercises.
    public var exercises: String
    /// Paths relative to the vectors directory.
    public var file: String
    public var dump: String?
    public var save: String?
    public var heads: [String]
    /// For invalid and either vectors: the named error category.
    public var error: String?
    /// For invalid and either vectors: how this implementation words the rejection (informative only).
    public var message: String?

    var manifestEntry: JSONValue {
        var members: [ExactString: JSONValue] = [
            "name": .string(name), "category": .string(category), "expect": .string(expect.rawValue),
            "exercises": .string(exercises), "file": .string(file),
        ]
        if let dump { members["dump"] = .string(dump) }
        if let save { members["save"] = .string(save) }
        if expect != .invalid { members["heads"] = .array(heads.map(JSONValue.string)) }
        if let error { members["error"] = .string(error) }
        if let message { members["message"] = .string(message) }
        return .object(members)
    }

    init(entry: JSONValue) throws {
        guard case .object(let m) = entry else { throw VectorError.badManifest("a vector is not an object") }
        func string(_ key: String) -> String? {
            if case .string(let s)? = m[ExactString(key)] { return s }
            return nil
        }
        guard let name = string("name"), let category = string("category"), let file = string("file"),
              let expect = string("expect").flatMap(Expectation.init(rawValue:)) else {
            throw VectorError.badManifest("vector \(string("name") ?? "?") lacks name, category, file or expect")
        }
        self.name = name
        self.category = category
        self.file = file
        self.expect = expect
        exercises = string("exercises") ?? ""
        dump = string("dump")
        save = string("save")
        error = string("error")
        message = string("message")
        if case .array(let list)? = m["heads"] {
            heads = list.compactMap { if case .string(let s) = $0 { return s } else { return nil } }
        } else {
            heads = []
        }
        if expect != .invalid && dump == nil { throw VectorError.badManifest("\(expect) vector \(name) has no dump") }
    }

    init(name: String, category: String, expect: Expectation, exercises: String, file: String,
         dump: String? = nil, save: String? = nil, heads: [String] = [], error: String? = nil, message: String? = nil) {
        self.name = name
        self.category = category
        self.expect = expect
        self.exercises = exercises
        self.file = file
        self.dump = dump
        self.save = save
        self.heads = heads
        self.error = error
        self.message = message
    }
}

public enum VectorError: Error, CustomStringConvertible {
    case badManifest(String)
    case generator(String)
    public var description: String {
        switch self {
        case .badManifest(let why): return "bad manifest: \(why)"
        case .generator(let why): return "vector generator: \(why)"
        }
    }
}

/// `Vectors/manifest.json`: the list of vectors. Documents are under
/// `vectors`; sync messages, states and Bloom filters under `sync` (absent
/// in older manifests), so that readers of `vectors` see only documents.
public struct VectorManifest: Sendable {
    public var vectors: [Vector]
    public var sync: [SyncVector]
    /// Edit scripts (`scripts` in the file; absent in older manifests).
    public var scripts: [ScriptVector]

    public static let fileName = "manifest.json"

    public init(vectors: [Vector], sync: [SyncVector] = [], scripts: [ScriptVector] = []) {
        self.vectors = vectors
        self.sync = sync
        self.scripts = scripts
    }

    public init(contentsOf directory: URL) throws {
        let bytes = try FileAccess.read(directory.appendingPathComponent(Self.fileName).path)
        guard case .object(let root) = try JSONParser.parse([UInt8](bytes)), case .array(let entries)? = root["vectors"] else {
            throw VectorError.badManifest("expected {\"vectors\": [...]}")
        }
        vectors = try entries.map(Vector.init(entry:))
        switch root["sync"] {
        case nil: sync = []
        case .array(let entries)?: sync = try entries.map(SyncVector.init(entry:))
        default: throw VectorError.badManifest("\"sync\" is not an array")
        }
        switch root["scripts"] {
        case nil: scripts = []
        case .array(let entries)?: scripts = try entries.map(ScriptVector.init(entry:))
        default: throw VectorError.badManifest("\"scripts\" is not an array")
        }
    }

    /// The manifest as JSON text, one vector per line (stable, diff-friendly).
    public var text: String {
        var out = "{\n  \"format\": 1,\n"
        out += "  \"about\": \"swift-automerge conformance vectors; see README.md. Regenerate with: swift run automerge vectors generate\",\n"
        out += "  \"vectors\": [\n"
        for (index, vector) in vectors.enumerated() {
            out += "    " + vector.manifestEntry.serialized + (index + 1 < vectors.count ? ",\n" : "\n")
        }
        out += "  ]"
        for (key, entries) in [("sync", sync.map(\.manifestEntry)), ("scripts", scripts.map(\.manifestEntry))] where !entries.isEmpty {
            out += ",\n  \"\(key)\": [\n"
            out += entries.map { "    " + $0.serialized }.joined(separator: ",\n") + "\n  ]"
        }
        return out + "\n}\n"
    }
}

/// The generated contents of the vectors directory: relative path to bytes.
public struct GeneratedVectors: Sendable {
    public var files: [String: [UInt8]]
    public var manifest: VectorManifest

    /// Writes every file under `directory`, first removing the generated
    /// folders and manifest (so a vector that was dropped does not linger).
    public func write(to directory: URL) throws(FileAccessError) {
        for folder in ["valid", "invalid", "either", "sync", "scripts"] {
            try FileAccess.removeIfPresent(directory.appendingPathComponent(folder).path)
        }
        for (path, bytes) in files.sorted(by: { $0.key < $1.key }) {
            let url = directory.appendingPathComponent(path)
            try FileAccess.createDirectory(url.deletingLastPathComponent().path)
            try FileAccess.write(Data(bytes), to: url.path)
        }
    }
}

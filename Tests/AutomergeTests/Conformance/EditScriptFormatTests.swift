@testable import AutomergeConformance
import Automerge
import Foundation
import Testing

/// Reading and running edit scripts (Vectors/README.md, "Edit scripts"): a
/// malformed script is an `EditScriptError` naming its step and its problem,
/// never a crash, and every script vector runs to exactly what it records.
@Suite("Edit scripts: format")
struct EditScriptFormatTests {
    static let peerA = #"{"name": "a", "actor": "61616161616161616161616161616161", "time": 1700000000000}"#

    /// A script of peer `a` (or `peers`, JSON) and `steps` (JSON objects, one string each).
    static func script(_ steps: [String], peers: String = "[\(peerA)]") -> String {
        #"{"description": "test", "peers": \#(peers), "steps": [\#(steps.joined(separator: ", "))]}"#
    }

    /// What reading and then running `text` throws; nil when it runs.
    static func failure(_ text: String) -> EditScriptError? {
        do {
            _ = try EditScriptRunner.run(try EditScript(bytes: Array(text.utf8)))
            return nil
        } catch {
            return error
        }
    }

    /// Expects `text` to fail at `step` (nil: the script as a whole) for a reason containing `reason`.
    static func expectFailure(_ text: String, step: Int?, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = failure(text) else {
            Issue.record("ran without an error: \(text)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.step == step, "\(error)", sourceLocation: sourceLocation)
        #expect(error.reason.contains(reason), "\(error)", sourceLocation: sourceLocation)
        #expect(error.description.hasPrefix(step.map { "step \($0): " } ?? ""), sourceLocation: sourceLocation)
    }

    static let makeList = #"{"action": "putObject", "obj": [], "key": "list", "type": "list"}"#
    static let makeText = #"{"action": "putObject", "obj": [], "key": "text", "type": "text"}"#

    @Test("text that is not JSON, or JSON that is not an object, is refused for the script as a whole")
    func notAScript() {
        Self.expectFailure(#"{"peers": ["#, step: nil, "invalid JSON")
        Self.expectFailure("", step: nil, "invalid JSON")
        Self.expectFailure("[1, 2]", step: nil, "a script must be a JSON object")
        Self.expectFailure(#""script""#, step: nil, "a script must be a JSON object")
        Self.expectFailure(Self.script(["42"]), step: 1, "a step must be a JSON object")
    }

    @Test("a script needs peers with distinct names and actor ids in hex")
    func peers() {
        Self.expectFailure(Self.script([], peers: "[]"), step: nil, "at least one peer")
        Self.expectFailure(#"{"description": "x", "steps": []}"#, step: nil, "'peers' is missing")
        Self.expectFailure(Self.script([], peers: "[\(Self.peerA), \(Self.peerA)]"), step: nil, "two peers have one name")
        for actor in ["xyz", "abc", "", "6161616161616161616161616161616g"] {
            let peer = #"[{"name": "a", "actor": "\#(actor)", "time": 0}]"#
            Self.expectFailure(Self.script([], peers: peer), step: nil, "'actor' must be an actor id in hex")
        }
        Self.expectFailure(Self.script([], peers: #"[{"name": "a", "actor": "61", "time": 1.5}]"#), step: nil, "'time' must be an integer")
        Self.expectFailure(Self.script([#"{"action": "fork", "as": "b", "actor": "zz"}"#]), step: 1, "'actor' must be an actor id")
    }

    @Test("an unknown action or a missing field names the step and the field")
    func actionsAndFields() {
        Self.expectFailure(Self.script([Self.makeList, #"{"action": "frobnicate"}"#]), step: 2, "unknown action 'frobnicate'")
        Self.expectFailure(Self.script([#"{"obj": []}"#]), step: 1, "'action' is missing")
        Self.expectFailure(Self.script([#"{"action": "put", "obj": [], "key": "k"}"#]), step: 1, "'value' is missing")
        Self.expectFailure(Self.script([Self.makeList, #"{"action": "insert", "obj": ["list"], "value": {"int": 1}}"#]),
                           step: 2, "'index' is missing")
        Self.expectFailure(Self.script([#"{"action": "merge"}"#]), step: 1, "'from' is missing")
        Self.expectFailure(Self.script([#"{"action": "put", "obj": [], "key": 7, "value": {"int": 1}}"#]), step: 1, "'key' must be a string")
        Self.expectFailure(Self.script([#"{"action": "put", "obj": "list", "key": "k", "value": {"int": 1}}"#]), step: 1, "'obj' must be an array")
    }

    @Test("an index must be a non-negative integer: negative, fractional and quoted ones are refused")
    func indices() {
        for index in ["-1", "1.5", "0.0", #""1""#, "true", "18446744073709551616"] {
            let insert = #"{"action": "insert", "obj": ["list"], "index": \#(index), "value": {"int": 1}}"#
            Self.expectFailure(Self.script([Self.makeList, insert]), step: 2, "'index' must be a non-negative integer")
            guard !index.hasPrefix("\"") else { continue }  // a quoted index is a key
            let path = #"{"action": "put", "obj": ["list", \#(index)], "key": "k", "value": {"int": 1}}"#
            Self.expectFailure(Self.script([Self.makeList, path]), step: 2, "'obj'")
        }
        Self.expectFailure(Self.script([Self.makeText, #"{"action": "spliceText", "obj": ["text"], "index": 0, "delete": 0.5, "text": "x"}"#]),
                           step: 2, "'delete' must be an integer")
    }

    @Test("a put, delete or increment takes exactly one of key and index")
    func keyOrIndex() {
        Self.expectFailure(Self.script([#"{"action": "put", "obj": [], "key": "k", "index": 0, "value": {"int": 1}}"#]),
                           step: 1, "exactly one of 'key' and 'index'")
        Self.expectFailure(Self.script([#"{"action": "delete", "obj": []}"#]), step: 1, "exactly one of 'key' and 'index'")
    }

    @Test("an unknown object type or expand mode is named")
    func enumerations() {
        Self.expectFailure(Self.script([#"{"action": "putObject", "obj": [], "key": "k", "type": "set"}"#]),
                           step: 1, "'type' must be map, list or text, not 'set'")
        let mark = #"{"action": "mark", "obj": ["text"], "start": 0, "end": 1, "name": "b", "value": {"bool": true}, "expand": "sideways"}"#
        Self.expectFailure(Self.script([Self.makeText, mark]), step: 2, "'expand' must be before, after, both or none, not 'sideways'")
    }

    @Test("a scalar in the wrong form is refused: a fractional int, f64 that is not 16 hex digits, two tags, no tag")
    func scalars() {
        for value in [#"{"int": 1.5}"#, #"{"f64": "xyz"}"#, #"{"f64": 1.5}"#, #"{"int": 1, "str": "a"}"#, "{}", #""plain""#, "3",
                      #"{"uint": -1}"#, #"{"str": 3}"#, #"{"bool": "yes"}"#, #"{"bytes": "zz"}"#, #"{"colour": "red"}"#] {
            Self.expectFailure(Self.script([Self.makeList, #"{"action": "put", "obj": [], "key": "k", "value": \#(value)}"#]),
                               step: 2, "is not a scalar in the dump format")
        }
        Self.expectFailure(Self.script([Self.makeList, #"{"action": "splice", "obj": ["list"], "index": 0, "delete": 0, "values": [{"int": 1}, {"int": 0.5}]}"#]),
                           step: 2, "is not a scalar")
    }

    @Test("a path through a scalar, to a missing key or past a list's end names the path")
    func paths() {
        let putK = #"{"action": "put", "obj": [], "key": "k", "value": {"int": 1}}"#
        Self.expectFailure(Self.script([putK, #"{"action": "put", "obj": ["k"], "key": "x", "value": {"int": 2}}"#]),
                           step: 2, #"obj ["k"] is not an object"#)
        Self.expectFailure(Self.script([#"{"action": "put", "obj": ["nope"], "key": "x", "value": {"int": 2}}"#]),
                           step: 1, #"obj ["nope"] is absent"#)
        let insert = #"{"action": "insert", "obj": ["list"], "index": 0, "value": {"int": 1}}"#
        Self.expectFailure(Self.script([Self.makeList, insert, #"{"action": "put", "obj": ["list", 1], "key": "x", "value": {"int": 2}}"#]),
                           step: 3, #"obj ["list", 1] is absent"#)
        Self.expectFailure(Self.script([Self.makeList, insert, #"{"action": "put", "obj": ["list", 0], "key": "x", "value": {"int": 2}}"#]),
                           step: 3, #"obj ["list", 0] is not an object"#)
    }

    @Test("peers and slots: fork into an existing peer, merge with itself, an unknown peer or slot are refused")
    func peersAndSlots() {
        let actorB = "62626262626262626262626262626262"
        Self.expectFailure(Self.script([#"{"action": "fork", "as": "a", "actor": "\#(actorB)"}"#]), step: 1, "fork into 'a', a peer that exists")
        Self.expectFailure(Self.script([#"{"action": "fork", "as": "b", "actor": "\#(actorB)"}"#, #"{"action": "fork", "as": "b", "actor": "\#(actorB)"}"#]),
                           step: 2, "fork into 'b'")
        Self.expectFailure(Self.script([#"{"action": "merge", "from": "a"}"#]), step: 1, "a peer cannot merge itself")
        Self.expectFailure(Self.script([#"{"action": "merge", "from": "zz"}"#]), step: 1, "no peer 'zz'")
        Self.expectFailure(Self.script([#"{"action": "commit", "peer": "zz"}"#]), step: 1, "no peer 'zz'")
        Self.expectFailure(Self.script([#"{"action": "save", "into": "s"}"#, #"{"action": "load", "from": "t", "actor": "\#(actorB)"}"#]),
                           step: 2, "no saved slot 't'")
        var script = EditScript(description: "", peers: [.init(name: "a", actor: S.actor("a"), time: 0)], steps: [], result: "zz")
        #expect(throws: EditScriptError(step: nil, "no peer 'zz' to give the result")) { try EditScriptRunner.run(script) }
        script.result = nil
        #expect(throws: Never.self) { try EditScriptRunner.run(script) }
    }

    @Test("an edit the document refuses (increment of a non-counter, an index past the end) names the step and the action")
    func refusedEdits() {
        let putK = #"{"action": "put", "obj": [], "key": "k", "value": {"int": 1}}"#
        Self.expectFailure(Self.script([putK, #"{"action": "increment", "obj": [], "key": "k", "by": 1}"#]), step: 2, "increment failed")
        Self.expectFailure(Self.script([#"{"action": "increment", "obj": [], "key": "missing", "by": 1}"#]), step: 1, "increment failed")
        Self.expectFailure(Self.script([Self.makeList, #"{"action": "insert", "obj": ["list"], "index": 3, "value": {"int": 1}}"#]),
                           step: 2, "insert failed")
        Self.expectFailure(Self.script([Self.makeList, #"{"action": "delete", "obj": ["list"], "index": 0}"#]), step: 2, "delete failed")
        Self.expectFailure(Self.script([Self.makeText, #"{"action": "spliceText", "obj": ["text"], "index": 1, "delete": 0, "text": "x"}"#]),
                           step: 2, "spliceText failed")
        Self.expectFailure(Self.script([#"{"action": "insert", "obj": [], "index": 0, "value": {"int": 1}}"#]), step: 1, "insert failed")
    }

    @Test("a script of 80,000 puts reads and runs in time linear in its length")
    func longScript() throws {
        /// Reading and running `count` puts, each to a key of its own: the
        /// least of three tries, so that a test running beside it (the suite
        /// runs in parallel) does not decide the ratio.
        func time(_ count: Int) throws -> (read: Duration, run: Duration) {
            let steps = (0..<count).map { #"{"action": "put", "obj": [], "key": "k\#($0)", "value": {"int": \#($0)}}"# }
            let bytes = Array(Self.script(steps).utf8)
            var best: (read: Duration, run: Duration) = (.seconds(3600), .seconds(3600))
            for _ in 0..<3 {
                var script: EditScript?
                let read = try ContinuousClock().measure { script = try EditScript(bytes: bytes) }
                #expect(script?.steps.count == count)
                var document: Document?
                let run = try ContinuousClock().measure { document = try EditScriptRunner.run(script!) }
                #expect(document?.keys(obj: .ROOT).count == count)
                best = (min(best.read, read), min(best.run, run))
            }
            return best
        }
        let small = try time(5_000), large = try time(80_000)
        let report = "5,000 steps: \(small), 80,000 steps: \(large)"
        // Sixteen times the steps: linear is about 16x (a little more for the
        // map's sorted keys), quadratic 256x.
        #expect(large.read < small.read * 64, "reading: \(report)")
        #expect(large.run < small.run * 64, "running: \(report)")
        #expect(large.read + large.run < .seconds(60), "\(report)")
    }

    /// The package root, three levels above this file's directory.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let vectors = packageRoot.appendingPathComponent("Vectors")

    /// The `scripts` entries of Vectors/manifest.json.
    static func manifestScripts() throws -> [ScriptVector] {
        let manifest = try JSONParser.parse([UInt8](try Data(contentsOf: vectors.appendingPathComponent("manifest.json"))))
        guard case .object(let root) = manifest, case .array(let entries)? = root["scripts"] else {
            Issue.record("manifest.json has no scripts array")
            return []
        }
        return try entries.map { try ScriptVector(entry: $0) }
    }

    @Test("every script vector reads back to the JSON it was read from")
    func vectorsReadBack() throws {
        let vectors = try Self.manifestScripts()
        #expect(vectors.count >= 50)
        for vector in vectors {
            let bytes = [UInt8](try Data(contentsOf: Self.vectors.appendingPathComponent(vector.file)))
            let script = try EditScript(bytes: bytes)
            #expect(script.json == (try JSONParser.parse(bytes)), "\(vector.name)")
            #expect(try EditScript(json: script.json) == script, "\(vector.name)")
            #expect(script.expected != nil, "\(vector.name) records what it must give")
        }
    }

    @Test("every script vector runs to its expected heads, changes and dump, and exactly the bytes of its save")
    func vectorsRun() throws {
        for vector in try Self.manifestScripts() {
            let script = try EditScript(bytes: [UInt8](try Data(contentsOf: Self.vectors.appendingPathComponent(vector.file))))
            let document = try EditScriptRunner.run(script)
            let got = EditScriptRunner.expected(of: document)
            guard let expected = script.expected else { continue }
            #expect(got.heads == expected.heads, "\(vector.name): heads")
            #expect(got.changes == expected.changes, "\(vector.name): changes")
            #expect(JSONDiff.equal(got.dump, expected.dump), "\(vector.name): dump")
            let save = try Data(contentsOf: Self.vectors.appendingPathComponent(vector.save))
            #expect(document.save(compress: false) == save, "\(vector.name): save")
            #expect(try BuiltInScriptImplementation().save(running: script) == save, "\(vector.name): built-in implementation")
        }
    }
}

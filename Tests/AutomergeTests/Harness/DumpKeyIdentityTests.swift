@testable import AutomergeConformance
import Automerge
import Foundation
import Testing

extension Harness {
    /// Keys are their exact Unicode scalars everywhere the harness compares
    /// dumps, scripts and peers: "é" (U+00E9) and "e\u{301}" are two keys,
    /// as Automerge and JSON have them, though Swift's `String ==` calls
    /// them equal. An implementation that drops one of the two, or swaps
    /// their values, must be reported.
    @Suite("Harness: keys compare by Unicode scalars")
    struct DumpKeyIdentityTests {
        static let (composed, decomposed) = ("\u{E9}", "e\u{301}")

        /// A document whose root maps the composed key to 1 and the decomposed one to 2.
        static func twoKeys() throws -> Document {
            let doc = Document()
            doc.actor = ActorId(hexString: "aa")!
            try doc.put(obj: .ROOT, key: composed, value: .Int(1))
            try doc.put(obj: .ROOT, key: decomposed, value: .Int(2))
            return doc
        }

        /// `dump` with its root map's members replaced by `members` (JSON text).
        static func withRoot(_ dump: JSONValue, _ members: String) throws -> JSONValue {
            guard case .object(var object) = dump else { throw VectorError.generator("a dump is an object") }
            object["doc"] = try JSONParser.parse(#"{"map": {\#(members)}}"#)
            return .object(object)
        }

        @Test("the dump keeps both keys, as `automerge dump` writes them")
        func dumpKeepsBothKeys() throws {
            let doc = try Self.twoKeys()
            let dump = CanonicalDump.dump(doc)
            guard case .object(let top) = dump, case .object(let root)? = top["doc"], case .object(let map)? = root["map"] else {
                Issue.record("no root map in \(dump.serialized)")
                return
            }
            #expect(map.count == 2)
            #expect(map[Self.composed] == .object(["int": .number("1")]))
            #expect(map[Self.decomposed] == .object(["int": .number("2")]))
            #expect(try JSONParser.parse(CanonicalDump.serialized(doc)) == dump)
        }

        @Test("a dump that drops one of the two keys, or swaps their values, differs")
        func droppedOrSwappedKeyDiffers() throws {
            let expected = CanonicalDump.dump(try Self.twoKeys())
            let (c, d) = (Self.composed, Self.decomposed)
            let dropped = try Self.withRoot(expected, #""\#(c)": {"int": 1}"#)
            let swapped = try Self.withRoot(expected, #""\#(c)": {"int": 2}, "\#(d)": {"int": 1}"#)
            let same = try Self.withRoot(expected, #""\#(d)": {"int": 2}, "\#(c)": {"int": 1}"#)
            #expect(JSONDiff.equal(expected, same), "member order does not matter")
            #expect(!JSONDiff.equal(expected, dropped))
            #expect(!JSONDiff.equal(expected, swapped))
            #expect(JSONDiff.describe(expected: expected, actual: dropped).contains(#"$.doc.map.e\u{301}: expected {"int":2}, missing"#))
            #expect(JSONDiff.describe(expected: expected, actual: swapped).contains(#"$.doc.map.\u{E9}.int: expected 1, got 2"#))
        }

        @Test("string values compare by scalars, and look different in the report")
        func stringValuesCompareByScalars() throws {
            let (a, b) = (JSONValue.object(["str": .string(Self.composed)]), JSONValue.object(["str": .string(Self.decomposed)]))
            #expect(a != b && !JSONDiff.equal(a, b))
            #expect(JSONDiff.describe(expected: a, actual: b).contains(#"expected "\u{E9}", got "e\u{301}""#))
        }

        @Test("the parser keeps canonically equivalent keys apart and refuses a repeated key")
        func parserKeys() throws {
            let text = #"{"\#(Self.composed)": 1, "\#(Self.decomposed)": 2}"#
            guard case .object(let object) = try JSONParser.parse(text) else {
                Issue.record("not an object")
                return
            }
            #expect(object.keys.map { ExactString($0) } == [ExactString(Self.composed), ExactString(Self.decomposed)])
            #expect(JSONValue.object(object).serialized == #"{"e\#u{301}":2,"\#u{E9}":1}"#, "keys in UTF-8 byte order")
            #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(#"{"k": 1, "k": 2}"#) }
            #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(#"{"\#(Self.decomposed)": 1, "e\u0301": 2}"#) }
        }

        @Test("a program whose dump drops one of the two keys fails the vector")
        func runnerReportsDroppedKey() throws {
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
            try FileAccess.createDirectory(scratch.path)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let doc = try Self.twoKeys()
            doc.commitWith(message: nil, timestamp: Date(timeIntervalSince1970: 0))
            try FileAccess.write(doc.save(), to: scratch.appendingPathComponent("keys.automerge").path)
            let expected = CanonicalDump.dump(doc)
            try FileAccess.write(Data(expected.serialized.utf8), to: scratch.appendingPathComponent("keys.json").path)
            let vector = Vector(name: "keys", category: "nested", expect: .valid, exercises: "two equivalent keys",
                                file: "keys.automerge", dump: "keys.json", heads: doc.heads().map(\.description))
            #expect(try ConformanceRunner.check(vector, in: scratch, against: .builtIn) == nil)

            let dropped = try Self.withRoot(expected, #""\#(Self.composed)": {"int": 1}"#)
            let program = scratch.appendingPathComponent("dropper.sh")
            try "#!/bin/sh\ncat '\(scratch.path)/dropped.json'\n".write(to: program, atomically: true, encoding: .utf8)
            try FileAccess.write(Data(dropped.serialized.utf8), to: scratch.appendingPathComponent("dropped.json").path)
            let failure = try ConformanceRunner.check(vector, in: scratch, against: .external(command: "sh '\(program.path)'"))
            #expect(failure?.contains("dump differs") == true, "\(failure ?? "passed")")
        }

        @Test("the unicode-keys vector records all ten keys")
        func unicodeKeysVector() throws {
            let url = VectorTests.directory.appendingPathComponent("valid/nested/unicode-keys.json")
            let dump = try JSONParser.parse([UInt8](try FileAccess.read(url.path)))
            guard case .object(let top) = dump, case .object(let root)? = top["doc"], case .object(let map)? = root["map"] else {
                Issue.record("no root map")
                return
            }
            #expect(map.count == 10)
            #expect(map[Self.composed] == .object(["str": .string(Self.composed)]))
            #expect(map[Self.decomposed] == .object(["str": .string(Self.decomposed)]))
        }

        @Test("peers compare every key: the conflicts of two equivalent keys are two entries")
        func peerConflictsKeepBothKeys() throws {
            let conflicts = PeerComparison.conflicts(try Self.twoKeys())
            #expect(conflicts.count == 2)
            #expect(Set(conflicts.values).count == 2, "\(conflicts)")
            let texts = [Self.composed, Self.decomposed].map { PeerComparison.describe(.Scalar(.String($0))) }
            #expect(texts[0] != texts[1])
        }

        @Test("script peers named by equivalent strings are two peers")
        func scriptPeersByScalars() throws {
            let peers = #"[{"name": "\#(Self.composed)", "actor": "aa", "time": 0}, {"name": "\#(Self.decomposed)", "actor": "bb", "time": 0}]"#
            let steps = [#"{"action": "put", "key": "k", "value": {"int": 1}}"#,
                         #"{"action": "put", "peer": "\#(Self.decomposed)", "key": "k", "value": {"int": 2}}"#,
                         #"{"action": "merge", "from": "\#(Self.decomposed)"}"#]
            let text = #"{"description": "two peers", "peers": \#(peers), "steps": [\#(steps.joined(separator: ", "))]}"#
            let document = try EditScriptRunner.run(try EditScript(bytes: Array(text.utf8)))
            #expect(document.getHistory().count == 2)
            #expect(try document.getAll(obj: .ROOT, key: "k").count == 2)
        }
    }
}

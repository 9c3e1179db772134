import AutomergeTestSupport
import Foundation
import Testing
@testable import AutomergeStore

/// `automerge store DIR NAME ...`: the datastore from the shell, JSON in and
/// out; a failure is one line on standard error naming the problem and a
/// non-zero exit status.
@Suite("Datastore: command line",
       .enabled(if: AutomergeExecutable.url != nil, "the automerge executable is not built beside the tests"))
struct StoreCommandLineTests {
    /// One manager directory the commands of a test share; the datastore is `todo`.
    struct Shell {
        let store: TemporaryStore
        init() throws { store = try TemporaryStore() }

        /// Runs a command that must succeed; returns its output lines as JSON values.
        func json(_ arguments: String..., input: String = "") async throws -> [BodyValue] {
            let result = try await run(arguments, input: input)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stderr.isEmpty)
            return try result.stdout.split(separator: "\n").map { try BodyJSON.decode(Data($0.utf8)) }
        }

        /// Runs a command that must fail; returns its one line of standard error.
        func failure(_ arguments: String..., input: String = "", datastore: String = "todo") async throws -> String {
            let result = try await run(arguments, input: input, datastore: datastore)
            #expect(result.status != 0, "\(arguments) succeeded")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr.hasSuffix("\n") && !result.stderr.dropLast().contains("\n"), "not one line: \(result.stderr)")
            return String(result.stderr.dropLast())
        }

        private func run(_ arguments: [String], input: String, datastore: String = "todo") async throws
            -> AutomergeExecutable.Output
        {
            try await AutomergeExecutable.run(["store", store.directory.path, datastore] + arguments, input: input)
        }
    }

    @Test("create, get, update, history and delete, as a script would")
    func documentLifecycle() async throws {
        let shell = try Shell()
        let created = try #require(try await shell.json("create", "--id", "groceries", #"{"item":"milk","done":false}"#).first)
        #expect(created["id"] == "groceries")
        let rev1 = try #require(created["rev"]?.stringValue)
        #expect(rev1.hasPrefix("1-"))

        let got = try await shell.json("get", "groceries")
        #expect(got == [["id": "groceries", "rev": .string(rev1), "deleted": false,
                         "body": ["item": "milk", "done": false], "attachments": [:]]])

        let updated = try await shell.json("update", "groceries", rev1, "-", input: #"{"item":"milk","done":true}"#)
        let rev2 = try #require(updated.first?["rev"]?.stringValue)
        #expect(rev2.hasPrefix("2-"))
        #expect(try await shell.json("get", "groceries").first?["body"] == ["item": "milk", "done": true])
        #expect(try await shell.json("get", "groceries", "--rev", rev1).first?["body"] == ["item": "milk", "done": false])
        #expect(try await shell.json("history", "groceries").map { $0["rev"] } == [.string(rev2), .string(rev1)])

        let deleted = try await shell.json("delete", "groceries", rev2)
        #expect(deleted.first?["deleted"] == true)
        #expect(try await shell.json("get", "groceries").first?["deleted"] == true)
        #expect(try await shell.json("list").isEmpty)
    }

    @Test("generated ids, paging with --offset and --limit, and import of JSON lines")
    func listAndImport() async throws {
        let shell = try Shell()
        let generated = try await shell.json("create", #"{"n":0}"#)
        #expect(generated.first?["id"]?.stringValue?.isEmpty == false)
        let acknowledgements = try await shell.json("import", input: (1...9).map { #"{"_id":"doc\#($0)","n":\#($0)}"# }
            .joined(separator: "\n") + "\n\n" + #"{"_id":"doc1","n":100}"# + "\n")
        #expect(acknowledgements.count == 10)
        #expect(acknowledgements.last?["rev"]?.stringValue?.hasPrefix("2-") == true, "an existing _id is updated")
        let all = try await shell.json("list").map { $0["id"] }
        #expect(all.count == 10 && all.contains(generated.first?["id"]))
        #expect(all == all.sorted { $0!.stringValue! < $1!.stringValue! }, "by id")
        #expect(try await shell.json("list", "--offset", "2", "--limit", "3").map { $0["id"] } == Array(all[2..<5]))
        #expect(try await shell.json("list", "--limit", "1", "--descending").map { $0["id"] } == [all.last!])
        #expect(try await shell.json("get", "doc1").first?["body"] == ["n": 100])
    }

    @Test("attach a file: get lists its type, length and digest; a body update keeps it")
    func attachments() async throws {
        let shell = try Shell()
        let rev = try #require(try await shell.json("create", "--id", "a", #"{"k":1}"#).first?["rev"]?.stringValue)
        let file = try shell.store.file("notes.txt", Array("hello".utf8))
        let attached = try #require(try await shell.json("attach", "a", rev, file, "--name", "notes", "--type", "text/plain")
            .first?["rev"]?.stringValue)
        let sha = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        #expect(try await shell.json("get", "a").first?["attachments"] ==
                ["notes": ["type": "text/plain", "length": 5, "digest": .string("sha256-" + sha)]])
        _ = try await shell.json("update", "a", attached, #"{"k":2}"#)
        #expect(try await shell.json("get", "a").first?["attachments"]?["notes"] != nil)
    }

    @Test("a stale revision fails unless --merge; both sides' edits then show in conflicts")
    func staleRevisionsAndConflicts() async throws {
        let shell = try Shell()
        let rev1 = try #require(try await shell.json("create", "--id", "task", #"{"title":"a","owner":"ann"}"#).first?["rev"]?.stringValue)
        let rev2 = try #require(try await shell.json("update", "task", rev1, #"{"title":"b","owner":"ann"}"#).first?["rev"]?.stringValue)
        #expect(try await shell.failure("update", "task", rev1, #"{"title":"c","owner":"ann"}"#)
                == "automerge: conflict: document 'task' is at revision \(rev2), not \(rev1)")
        #expect(try await shell.json("conflicts").isEmpty)
        _ = try await shell.json("update", "task", rev1, #"{"title":"c","owner":"bob"}"#, "--merge")
        #expect(try await shell.json("conflicts").map { $0["id"] } == ["task"])
        #expect(try await shell.json("get", "task").first?["body"]?["owner"] == "bob", "a field only one side changed merges")
    }

    @Test("index and find: selectors, sort, limit, skip and projected fields")
    func indexAndFind() async throws {
        let shell = try Shell()
        _ = try await shell.json("import", input: """
            {"_id":"a","name":"mike","age":12}
            {"_id":"b","name":"fred","age":30,"bio":"likes cats"}
            {"_id":"c","name":"mike","age":34}
            """)
        #expect(try await shell.json("index", "age", "name", "--name", "ages") == [["name": "ages"]])
        #expect(try await shell.json("index", "bio", "--name", "search", "--text") == [["name": "search"]])
        let found = try await shell.json("find", #"{"name":"mike"}"#, "--sort", #"[{"age":"desc"}]"#, "--fields", "age")
        #expect(found.map { $0["id"] } == ["c", "a"])
        #expect(found.map { $0["body"] } == [["age": 34], ["age": 12]])
        #expect(try await shell.json("find", #"{"age":{"$gte":12}}"#, "--skip", "1", "--limit", "1").map { $0["id"] } == ["b"])
        #expect(try await shell.json("find", #"{"$text":"cats"}"#).map { $0["id"] } == ["b"])
        #expect(try await shell.failure("find", #"{"age":{"$foo":1}}"#) == "automerge: invalid selector at age.$foo: unknown operator '$foo'")
        #expect(try await shell.failure("find", "{}", "--sort", #"[{"bio":"asc"}]"#) == "automerge: invalid sort: no JSON index holds all of bio")
    }

    @Test("errors: one line on standard error naming the problem, and a non-zero exit")
    func errors() async throws {
        let shell = try Shell()
        let missing = shell.store.directory.appendingPathComponent("missing.png").path
        _ = try await shell.json("create", "--id", "a", "{}")
        let rev = try #require(try await shell.json("get", "a").first?["rev"]?.stringValue)
        #expect(try await shell.failure("attach", "a", rev, missing) == "automerge: cannot read '\(missing)': no such file")
        #expect(try await shell.failure("get", "nope") == "automerge: document 'nope' not found")
        #expect(try await shell.failure("create", "--id", "a", "{}") == "automerge: document 'a' already exists")
        #expect(try await shell.failure("list", datastore: "9lives")
                == "automerge: invalid datastore name '9lives': names match ^[a-zA-Z]+[a-zA-Z0-9_]*$")
        #expect(try await shell.failure("create", "{not json").hasPrefix("automerge: invalid body: not JSON"))
        #expect(try await shell.failure("create", "[1,2]").hasPrefix("automerge: invalid body"))
        #expect(try await shell.failure("delete", "a", "1-00000000000000000000000000000000")
                == "automerge: document 'a' has no revision '1-00000000000000000000000000000000'")
        #expect(try await shell.failure("import", input: "\n[]\n") == "automerge: line 2: invalid body: a body is a JSON object")
        #expect(try await shell.failure("frobnicate").hasPrefix("automerge: unknown action 'frobnicate'"))
        #expect(try await shell.failure("update", "a").contains("Missing expected argument"))
    }
}

import AutomergeTestSupport
import Foundation
import Testing
@testable import AutomergeStore

/// `automerge store` keeps keys that differ only in Unicode normalization
/// apart from the JSON it reads to the JSON it prints.
@Suite("Unicode: the store command keeps keys that differ only in normalization apart",
       .enabled(if: AutomergeExecutable.url != nil, "the automerge executable is not built beside the tests"))
struct UnicodeCommandLineTests {
    typealias Shell = StoreCommandLineTests.Shell
    let c = ExactString(Normalization.composed)
    let d = ExactString(Normalization.decomposed)

    @Test("create then get round-trips both keys; find matches each key's own value")
    func createGetAndFind() async throws {
        let shell = try Shell()
        _ = try await shell.json("create", "--id", "doc", #"{"\u00e9":1,"e\u0301":2}"#)
        #expect(try await shell.json("get", "doc").first?["body"] == [c: 1, d: 2])
        #expect(try await shell.json("find", #"{"e\u0301":2}"#).map { $0["id"] } == ["doc"])
        #expect(try await shell.json("find", #"{"\u00e9":1}"#).map { $0["id"] } == ["doc"])
        #expect(try await shell.json("find", #"{"e\u0301":1}"#).isEmpty)
        #expect(try await shell.json("find", #"{"\u00e9":2}"#).isEmpty)
        #expect(try await shell.json("find", "{}", "--fields", Normalization.decomposed).first?["body"] == [d: 2])
    }

    @Test("--fields splits at the scalar ',', a combining mark after it included")
    func fieldsSplitByScalars() async throws {
        let shell = try Shell()
        _ = try await shell.json("create", "--id", "doc", #"{"a":1,"\u0301b":2,"c":3}"#)
        #expect(try await shell.json("find", "{}", "--fields", "a,\u{301}b").first?["body"] == ["a": 1, "\u{301}b": 2])
    }
}

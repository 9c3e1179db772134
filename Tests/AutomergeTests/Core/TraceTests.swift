import Crypto
import Foundation
import Testing
import AutomergeTestSupport
@testable import Automerge

@Suite("Editing trace", .ownThread)
struct TraceTests {

    /// Replays every keystroke of writing the Automerge paper (259,778
    /// edits) with `spliceText` in one transaction and checks the final text
    /// against the trace's known result.
    @Test(.enabled(if: SharedTrace.paperEditsAvailable, SharedTrace.skipMessage))
    func theAutomergePaperTraceProducesTheKnownFinalText() throws {
        let edits = try SharedTrace.edits(at: SharedTrace.paperEdits)
        #expect(edits.count == 259_778)
        let doc = Document.peer(0x01)
        let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        var expectedOps = 1
        for edit in edits {
            try doc.spliceText(obj: text, start: UInt64(edit.position), delete: Int64(edit.delete), value: edit.insert)
            expectedOps += edit.insert.unicodeScalars.count + edit.delete
        }
        // One transaction: nothing committed yet, one op per inserted scalar and per deleted character.
        #expect(doc.getHistoryWithoutCommitting().isEmpty)
        #expect(doc.pendingOpCount == expectedOps)

        let result = try doc.text(obj: text)
        #expect(result.unicodeScalars.count == 104_852)
        #expect(doc.length(obj: text) == 104_852)
        let digest = SHA256.hash(data: Data(result.utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(digest == "a489e9022976c14e46627aea174d07797edcb3fd17df42605956d4cf01bf9039")

        doc.commitWith()
        #expect(doc.getHistory().count == 1)
        #expect(try doc.text(obj: text) == result)
    }

    @Test func traceEntriesParseWithAndWithoutInsertedText() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).json")
        try Data(#"[[0,0,"a"],[1,0,"b"],[0,1]]"#.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try SharedTrace.edits(at: url) == [
            .init(position: 0, delete: 0, insert: "a"), .init(position: 1, delete: 0, insert: "b"), .init(position: 0, delete: 1, insert: ""),
        ])
    }
}

extension Document {
    /// The history without committing the open transaction.
    fileprivate func getHistoryWithoutCommitting() -> [ChangeHash] {
        locked { $0.history.records.map(\.hash) }
    }
}

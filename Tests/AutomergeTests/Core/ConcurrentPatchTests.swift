import Foundation
import Testing
@testable import Automerge

/// What worker threads saw, checked afterwards on the test's own thread.
private final class Findings: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []

    func note(_ item: String) {
        lock.lock()
        items.append(item)
        lock.unlock()
    }

    func run(_ body: () throws -> Void) {
        do { try body() } catch { note("\(error)") }
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}

@Suite("Patches under concurrent edits")
struct ConcurrentPatchTests {
    /// Peers of `base` that each put `<prefix>-i` = i at the root, concurrently.
    private static func remotes(of base: Document, count: Int, prefix: String) throws -> [Document] {
        try (0..<count).map { i in
            let peer = base.fork()
            try peer.put(obj: .ROOT, key: "\(prefix)-\(i)", value: .Int(Int64(i)))
            peer.commitWith()
            return peer
        }
    }

    /// The patch of a peer of ``remotes(of:count:prefix:)``.
    private static func patch(_ prefix: String, _ i: Int) -> [Patch] {
        [Patch(action: .Put(.ROOT, .Key("\(prefix)-\(i)"), .Scalar(.Int(Int64(i)))), path: [])]
    }

    /// Each call's patches take its own before-state to its own after-state:
    /// a local edit made by another thread (pending or committed) between
    /// reading the heads and applying would show up in them.
    @Test func mergeAndApplyPatchesHoldOnlyTheirOwnChanges() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "start", value: .Int(0))
        doc.commitWith()
        let workers = 48
        let merged = try Self.remotes(of: doc, count: workers, prefix: "merged")
        let encoded = try Self.remotes(of: doc, count: workers, prefix: "encoded").map { try $0.encodeChangesSince(heads: doc.heads()) }
        let findings = Findings()
        let editsDone = Findings()
        DispatchQueue.concurrentPerform(iterations: workers + 1) { worker in
            findings.run {
                if worker == workers {
                    // The editor: local puts, some committed, while the others receive.
                    for j in 0..<2_000 {
                        try doc.put(obj: .ROOT, key: "local-\(j % 50)", value: .Int(Int64(j)))
                        if j % 7 == 0 { doc.commitWith() }
                    }
                    editsDone.note("done")
                    return
                }
                let fromMerge = try doc.mergeWithPatches(other: merged[worker])
                if fromMerge != Self.patch("merged", worker) { findings.note("merge \(worker): \(fromMerge)") }
                let fromApply = try doc.applyEncodedChangesWithPatches(encoded: encoded[worker])
                if fromApply != Self.patch("encoded", worker) { findings.note("apply \(worker): \(fromApply)") }
            }
        }
        #expect(editsDone.all == ["done"])
        #expect(findings.all == [], "a call's patches held another thread's edits")
        for i in 0..<workers {
            #expect(try doc.get(obj: .ROOT, key: "merged-\(i)") == .Scalar(.Int(Int64(i))))
            #expect(try doc.get(obj: .ROOT, key: "encoded-\(i)") == .Scalar(.Int(Int64(i))))
        }
    }
}

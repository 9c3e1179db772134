import ArgumentParser
import Automerge
import AutomergeConformance
import Foundation

/// `automerge-bench sync [--rust CMD]`: the sync protocol's cost for three
/// workloads, in time, messages and bytes on the wire; beside Rust 0.11's
/// figures for the same documents when a Rust sync benchmark is given.
struct SyncBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync workloads: moby-dick and the editing trace into an empty peer, one change into a 10,000-change document.",
        discussion: """
            --rust names a program that runs the same sync loop on Rust 0.11 (`CMD SOURCE TARGET|- --runs N \
            [--resume]` printing one JSON line with median_ms, messages_a_to_b, messages_b_to_a, bytes_a_to_b, \
            bytes_b_to_a, heads_equal; --resume starts both states from TARGET's heads as shared heads). \
            Budgets: bytes no more than Rust's, time at most 0.5x Rust's.
            """)

    @Option(help: "Runs per workload.") var runs = 5
    @Option(help: "A Rust 0.11 sync benchmark program (see above).") var rust: String?
    @Option(help: "Run only the workloads whose name contains this (to profile one).") var only: String?

    /// A workload: the documents of both peers, and whether they resume from shared heads.
    struct Workload {
        var name: String
        var source: Data
        var target: Data
        var resume: Bool
    }

    /// What one sync loop put on the wire.
    struct Figures {
        var milliseconds: Double
        var messages: (Int, Int)
        var bytes: (Int, Int)
        var totalBytes: Int { bytes.0 + bytes.1 }
    }

    func run() throws {
        print("sync benchmarks (release build expected; median of \(runs) runs; a = peer with the changes, b = the other)\n")
        for workload in try workloads() where only.map(workload.name.contains) ?? true {
            let ours = try measureOurs(workload)
            print(String(format: "%-46@ %9.2f ms   %d + %d messages   %d + %d bytes", "sync: \(workload.name)" as NSString,
                         ours.milliseconds, ours.messages.0, ours.messages.1, ours.bytes.0, ours.bytes.1))
            guard let rust else { continue }
            let reference = try measureRust(workload, command: rust)
            print(String(format: "%-46@ %9.2f ms   %d + %d messages   %d + %d bytes", "  Rust 0.11" as NSString,
                         reference.milliseconds, reference.messages.0, reference.messages.1, reference.bytes.0, reference.bytes.1))
            let ratio = ours.milliseconds / reference.milliseconds
            print(String(format: "  time %.2fx Rust (budget 0.5x): %@; bytes %d vs %d (budget: no more): %@", ratio,
                         ratio <= 0.5 ? "met" : "MISSED", ours.totalBytes, reference.totalBytes,
                         ours.totalBytes <= reference.totalBytes ? "met" : "MISSED"))
        }
        if rust == nil { print("\n(no --rust program given: Rust's figures and the budgets are not shown)") }
    }

    func workloads() throws -> [Workload] {
        let moby = try Data(contentsOf: sharedFile("docs/moby-dick.automerge"))
        let trace = try applyTrace(try EditTrace(contentsOf: sharedFile("traces/automerge-paper-edits.json")), commitEvery: nil)
        let history = Document()
        history.actor = ActorId(hexString: "0123456789abcdef")!
        let text = try history.putObject(obj: .ROOT, key: "text", ty: .Text)
        for index in 0..<10_000 {
            if index % 2 == 0 {
                try history.put(obj: .ROOT, key: "key\(index % 100)", value: .Int(Int64(index)))
            } else {
                try history.spliceText(obj: text, start: 0, delete: 0, value: "\(index) ")
            }
            history.commitReproducibly()
        }
        let before = history.save()
        try history.put(obj: .ROOT, key: "new", value: .String("one more change"))
        history.commitReproducibly()
        return [
            Workload(name: "moby-dick into an empty peer", source: moby, target: Data(), resume: false),
            Workload(name: "editing trace into an empty peer", source: trace.save(), target: Data(), resume: false),
            Workload(name: "1 change into a 10,000-change document", source: history.save(), target: before, resume: true),
        ]
    }

    /// Loads both documents (untimed), then times the loop until both are quiet.
    func measureOurs(_ workload: Workload) throws -> Figures {
        var results: [Figures] = []
        for _ in 0..<max(1, runs) {
            let a = try Document(workload.source)
            let b = workload.target.isEmpty ? Document() : try Document(workload.target)
            let (stateA, stateB) = workload.resume
                ? (try SyncState(bytes: Data(Bytes.syncState(sharedHeads: b.heads()))), try SyncState(bytes: Data(Bytes.syncState(sharedHeads: b.heads()))))
                : (SyncState(), SyncState())
            var figures = Figures(milliseconds: 0, messages: (0, 0), bytes: (0, 0))
            let start = DispatchTime.now().uptimeNanoseconds
            while true {
                let aToB = a.generateSyncMessage(state: stateA)
                if let aToB {
                    figures.messages.0 += 1
                    figures.bytes.0 += aToB.count
                    try b.receiveSyncMessage(state: stateB, message: aToB)
                }
                let bToA = b.generateSyncMessage(state: stateB)
                if let bToA {
                    figures.messages.1 += 1
                    figures.bytes.1 += bToA.count
                    try a.receiveSyncMessage(state: stateA, message: bToA)
                }
                if aToB == nil && bToA == nil { break }
            }
            figures.milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            guard a.heads() == b.heads() else { throw ValidationError("\(workload.name): peers did not converge") }
            results.append(figures)
        }
        return results.sorted { $0.milliseconds < $1.milliseconds }[results.count / 2]
    }

    func measureRust(_ workload: Workload, command: String) throws -> Figures {
        let directory = FileManager.default.temporaryDirectory
        let source = directory.appendingPathComponent("sync-bench-source-\(getpid()).automerge")
        let target = directory.appendingPathComponent("sync-bench-target-\(getpid()).automerge")
        try workload.source.write(to: source)
        try workload.target.write(to: target)
        defer {
            try? FileManager.default.removeItem(at: source)
            try? FileManager.default.removeItem(at: target)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let targetArgument = workload.target.isEmpty ? "-" : target.path
        process.arguments = ["-c", "\(command) \"$0\" \"$1\" --runs \(runs)\(workload.resume ? " --resume" : "")", source.path, targetArgument]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, case .object(let json) = try JSONParser.parse([UInt8](output)) else {
            throw ValidationError("\(command) failed: \(String(decoding: output, as: UTF8.self))")
        }
        func number(_ key: String) throws -> Double {
            guard case .number(let text)? = json[key], let value = Double(text) else { throw ValidationError("\(command): no \(key)") }
            return value
        }
        guard case .bool(true)? = json["heads_equal"] else { throw ValidationError("\(command): Rust's peers did not converge") }
        return Figures(milliseconds: try number("median_ms"),
                       messages: (Int(try number("messages_a_to_b")), Int(try number("messages_b_to_a"))),
                       bytes: (Int(try number("bytes_a_to_b")), Int(try number("bytes_b_to_a"))))
    }
}

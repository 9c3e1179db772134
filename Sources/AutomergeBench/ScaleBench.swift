import ArgumentParser
import Automerge
import AutomergeConformance
import Foundation

/// `automerge-bench scale [--rust CMD] [WORKLOAD...]`: operations on large
/// documents and long histories (applying 10,000 changes, merging 100,000-op
/// histories, forking a 1M-op document, listing and saving 262k changes,
/// merging a concurrently typed editing trace), each beside Rust 0.11 doing
/// the same on the same files, budgeted as a ratio of Rust's time.
struct ScaleBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Operations at scale (apply, merge, fork, history, save, concurrent trace), against Rust 0.11.",
        discussion: """
            Each workload runs in a fresh process of this executable, which loads its inputs (untimed) and \
            reports the median of --runs timings of the operation alone; --rounds such processes run for each side, \
            alternating with Rust's (one round when the first is more than twice as far from the budget either \
            way), and each side's figure is the median of its rounds' medians. --rust names a command run as \
            `CMD WORKLOAD RUNS FILES...` that does the same with Rust 0.11 on the same files and prints \
            `ms=MEDIAN` (a program outside this repository). Budget: at most 0.5x Rust's median.
            """)

    @Option(help: "Runs per workload in each process.") var runs = 5
    @Option(help: "Rounds per workload: each runs our process, then Rust's, so that both sides meet the machine's slow minutes alike.")
    var rounds = 3
    @Option(help: "Rust 0.11's scale program (see above).") var rust: String?
    @Option(help: "Editing trace for the concurrent workloads (default ../shared/traces/automerge-paper-edits.json).")
    var trace: String?
    @Option(help: ArgumentHelp("Run one workload in this process and print its figures (used by the parent).", visibility: .hidden))
    var child: ScaleWorkload?
    @Argument(help: "Workloads (\(ScaleWorkload.allCases.map(\.rawValue).joined(separator: ", "))); all when none is named.")
    var workloads: [ScaleWorkload] = []

    /// The budget: our median over Rust's.
    static let budget = 0.5

    var traceFile: URL { trace.map { URL(fileURLWithPath: $0) } ?? sharedFile("traces/automerge-paper-edits.json") }

    func run() throws {
        if let child {
            print(Timings(try child.measureOurs(files: try child.files(trace: traceFile), runs: runs)).line)
            return
        }
        print("operations at scale (median of \(runs) in-process runs of the operation, each workload in a fresh process)\n")
        var rows: [(ScaleWorkload, Timings, Timings?)] = []
        for workload in workloads.isEmpty ? ScaleWorkload.allCases : workloads {
            let files = try workload.files(trace: traceFile)
            print("\(workload.rawValue): \(workload.summary)")
            var ourRounds: [Timings] = [], rustRounds: [Timings] = []
            for _ in 0..<max(rounds, 1) {
                ourRounds.append(try Timings(parsing: runBeside("automerge-bench", arguments: [
                    "scale", "--child", workload.rawValue, "--runs", "\(runs)", "--trace", traceFile.path])))
                guard let rust else { break }
                rustRounds.append(try Timings(parsing: shell(rust, [workload.rustName, "\(runs)"] + files.map(\.path))))
                // A first round far from the budget decides alone: more rounds are for verdicts noise could turn.
                if rustRounds.count == 1 {
                    let ratio = ourRounds[0].median / rustRounds[0].median
                    if ratio < Self.budget / 2 || ratio > Self.budget * 2 { break }
                }
            }
            let ours = Timings(rounds: ourRounds)
            print(ours.describe("ours", per: workload.unit))
            var reference: Timings?
            if !rustRounds.isEmpty {
                reference = Timings(rounds: rustRounds)
                var line = reference!.describe("Rust 0.11", per: workload.unit)
                let ratio = ours.median / reference!.median
                line += "   ours \(Self.ratio(ratio)) Rust (budget \(Self.budget)x): \(verdict(ratio, budget: Self.budget))"
                print(line)
            }
            rows.append((workload, ours, reference))
        }
        printTable(rows)
    }

    /// The summary table: workload, ours, Rust, ratio, budget, verdict.
    func printTable(_ rows: [(ScaleWorkload, Timings, Timings?)]) {
        print("\n| workload | ours | Rust 0.11 | ratio | budget | verdict |")
        print("| --- | --- | --- | --- | --- | --- |")
        for (workload, ours, reference) in rows {
            let mine = String(format: "%.1f ms (%@)", ours.median, ours.perUnit(workload.unit) as NSString)
            guard let reference else {
                print("| \(workload.rawValue) | \(mine) | | | ≤ \(Self.budget)x | (no --rust) |")
                continue
            }
            let ratio = ours.median / reference.median
            BudgetReport.add("\(workload.rawValue), time vs Rust 0.11", figure: "\(mine), \(Self.ratio(ratio))",
                             budget: "≤ \(Self.budget)x", verdict: verdict(ratio, budget: Self.budget))
            print(String(format: "| %@ | %@ | %.1f ms | %@ | ≤ %.1fx | %@ |", workload.rawValue as NSString, mine as NSString,
                         reference.median, Self.ratio(ratio) as NSString, Self.budget, verdict(ratio, budget: Self.budget) as NSString))
        }
        if rust == nil { print("\n(no --rust program given: Rust's figures and the budgets are not shown)") }
    }

    /// A ratio with two significant digits at least ("0.71x", "0.0047x").
    static func ratio(_ value: Double) -> String {
        value >= 0.1 ? String(format: "%.2fx", value) : String(format: "%.2gx", value)
    }
}

/// The median, fastest and slowest of a workload's runs, in milliseconds,
/// as both sides print them: `ms=MEDIAN min=MIN max=MAX runs=N`.
struct Timings {
    var median: Double
    var min: Double
    var max: Double
    var runs: Int

    init(_ times: [Double]) {
        let sorted = times.sorted()
        self.init(median: sorted[sorted.count / 2], min: sorted.first!, max: sorted.last!, runs: sorted.count)
    }

    init(median: Double, min: Double, max: Double, runs: Int) {
        (self.median, self.min, self.max, self.runs) = (median, min, max, runs)
    }

    /// Several processes' timings as one: the median of their medians (a
    /// slow minute moves one round, not the figure), the extremes of all.
    init(rounds: [Timings]) {
        let medians = rounds.map(\.median).sorted()
        self.init(median: medians[medians.count / 2], min: rounds.map(\.min).min()!, max: rounds.map(\.max).max()!,
                  runs: rounds.reduce(0) { $0 + $1.runs })
    }

    /// Reads the last line of `output` holding `ms=`.
    init(parsing output: String) throws {
        guard let line = output.split(separator: "\n").last(where: { $0.contains("ms=") }) else {
            throw ValidationError("no `ms=` line in:\n\(output)")
        }
        var fields: [Substring: Double] = [:]
        for field in line.split(separator: " ") {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1]) { fields[parts[0]] = value }
        }
        guard let median = fields["ms"] else { throw ValidationError("no median in `\(line)`") }
        self.init(median: median, min: fields["min"] ?? median, max: fields["max"] ?? median, runs: Int(fields["runs"] ?? 0))
    }

    var line: String { String(format: "ms=%.3f min=%.3f max=%.3f runs=%d", median, min, max, runs) }

    /// The median spread over the workload's unit, in µs (or ms for large units).
    func perUnit(_ unit: ScaleWorkload.Unit) -> String {
        let each = median / unit.count
        return each >= 1 ? String(format: "%.1f ms/%@", each, unit.name as NSString)
            : String(format: "%.2f µs/%@", each * 1000, unit.name as NSString)
    }

    func describe(_ label: String, per unit: ScaleWorkload.Unit) -> String {
        String(format: "  %-10@ median %9.2f ms   min %9.2f   max %9.2f   (%d runs)   %@", label as NSString, median, min, max, runs,
               perUnit(unit) as NSString)
    }
}

/// One workload of `automerge-bench scale`: its files, what ours times on them, and
/// what the Rust program is asked to time.
enum ScaleWorkload: String, CaseIterable, ExpressibleByArgument {
    case applyOne = "apply-one", applyBatch = "apply-batch", merge, fork, forkAt = "fork-at"
    case history, changes, saveHistory = "save-history"
    case concurrent2 = "concurrent-trace-2", concurrent3 = "concurrent-trace-3"
    case concurrentFull2 = "concurrent-trace-2-full", concurrentFull3 = "concurrent-trace-3-full"

    /// What a per-unit figure divides the median by.
    struct Unit {
        var count: Double
        var name: String
    }

    /// Changes in ``DocumentShape/history``'s file once loaded (262,144 + 400 new).
    static let historyChanges = 262_544.0

    var summary: String {
        switch self {
        case .applyOne: return "10,000 change chunks of 3 actors applied one call each to a loaded base (Rust: load_incremental each)"
        case .applyBatch: return "the same 10,000 change chunks applied in one call (Rust: load_incremental of the concatenation)"
        case .merge: return "merge a 100,000-op fork into a fork of its 100,000-op sibling (fork timed too)"
        case .fork: return "fork a 1M-op document and commit one put on the fork (ours copies on write what the put touches; Rust clones all)"
        case .forkAt: return "forkAt the middle change of a 1M-op document and commit one put on the fork"
        case .history: return "getHistory() of 262k changes (Rust: get_changes_meta(&[]) mapped to hashes)"
        case .changes: return "every change's bytes of 262k changes (encodeChangesSince([]); Rust: get_changes(&[]) + raw_bytes)"
        case .saveHistory: return "save() of the 262k-change document"
        case .concurrent2: return "editing trace typed by 2 actors, synced every \(ScaleWorkloads.syncEvery) runs: A's save merges B's"
        case .concurrent3: return "editing trace typed by 3 actors: A's save merges B's, then C's"
        case .concurrentFull2: return "editing trace typed by 2 actors: an empty document merges A's and B's"
        case .concurrentFull3: return "editing trace typed by 3 actors: an empty document merges A's, B's and C's"
        }
    }

    var unit: Unit {
        switch self {
        case .applyOne, .applyBatch: return Unit(count: Double(ScaleWorkloads.applyChanges), name: "change")
        case .merge: return Unit(count: Double(ScaleWorkloads.mergeOps), name: "op merged")
        case .fork: return Unit(count: 1, name: "fork")
        case .forkAt: return Unit(count: Double(ScaleWorkloads.forkOps / 2), name: "op kept")
        case .history, .changes, .saveHistory: return Unit(count: Self.historyChanges, name: "change")
        case .concurrent2: return Unit(count: 1, name: "merge")
        case .concurrent3, .concurrentFull2: return Unit(count: 2, name: "merge")
        case .concurrentFull3: return Unit(count: 3, name: "merge")
        }
    }

    /// The Rust program's name for the workload.
    var rustName: String {
        switch self {
        case .concurrent2, .concurrent3: return "concurrent"
        case .concurrentFull2, .concurrentFull3: return "concurrent-full"
        default: return rawValue
        }
    }

    /// The workload's input files, made if missing (both sides get them in this order).
    func files(trace: URL) throws -> [URL] {
        switch self {
        case .applyOne:
            let files = try ScaleWorkloads.applyFiles()
            return [files.base, files.chunks, files.lengths]
        case .applyBatch:
            let files = try ScaleWorkloads.applyFiles()
            return [files.base, files.chunks]
        case .merge:
            let files = try ScaleWorkloads.mergeFiles()
            return [files.left, files.right]
        case .fork:
            return [try ScaleWorkloads.forkFiles().document]
        case .forkAt:
            let files = try ScaleWorkloads.forkFiles()
            return [files.document, files.heads]
        case .history, .changes, .saveHistory:
            return [try DocumentShape.history.file()]
        case .concurrent2, .concurrentFull2:
            return try ScaleWorkloads.concurrentFiles(actors: 2, trace: trace)
        case .concurrent3, .concurrentFull3:
            return try ScaleWorkloads.concurrentFiles(actors: 3, trace: trace)
        }
    }

    /// Our timings of the operation, in milliseconds, one a run; the inputs
    /// are loaded untimed, and each run's result is checked untimed.
    func measureOurs(files: [URL], runs: Int) throws -> [Double] {
        func load(_ file: URL) throws -> Document { try Document(Data(contentsOf: file)) }
        switch self {
        case .applyOne, .applyBatch:
            let base = try Data(contentsOf: files[0])
            let expected = try Document(base).getHistory().count + ScaleWorkloads.applyChanges
            let check = { (document: Document) throws in
                guard document.getHistory().count == expected else { throw ScaleError("\(rawValue): not every change applied") }
            }
            if self == .applyBatch {
                let chunks = try Data(contentsOf: files[1])
                return try timedRuns(runs, setup: { try Document(base) }, check: check) { document in
                    try document.applyEncodedChanges(encoded: chunks)
                    return document
                }
            }
            let pieces = try ScaleWorkloads.applyChunks(files[1], lengths: files[2])
            return try timedRuns(runs, setup: { try Document(base) }, check: check) { document in
                for piece in pieces { try document.applyEncodedChanges(encoded: piece) }
                return document
            }
        case .merge:
            let left = try load(files[0]), right = try load(files[1])
            let expected = left.heads().union(right.heads())
            return try timedRuns(runs, check: { try Self.expect($0, heads: expected) }) {
                let target = left.fork()
                try target.merge(other: right)
                return target
            }
        case .fork, .forkAt:
            let document = try load(files[0])
            var heads: Set<ChangeHash>?
            if self == .forkAt {
                let lines = String(decoding: try Data(contentsOf: files[1]), as: UTF8.self).split(separator: "\n")
                heads = Set(try lines.map { line in
                    guard let hash = ChangeHash(hexString: String(line)) else { throw ScaleError("bad head \(line)") }
                    return hash
                })
            }
            return try timedRuns(runs) {
                let fork = try heads.map { try document.forkAt(heads: $0) } ?? document.fork()
                try fork.put(obj: .ROOT, key: "forked", value: .Int(1))
                fork.commitWith()
                return fork
            }
        case .history:
            let document = try load(files[0])
            return try timedRuns(runs) { document.getHistory() }
        case .changes:
            let document = try load(files[0])
            return try timedRuns(runs) { try document.encodeChangesSince(heads: []) }
        case .saveHistory:
            let document = try load(files[0])
            return try timedRuns(runs) { document.save() }
        case .concurrent2, .concurrent3:
            let others = try files.dropFirst().map(load)
            let expected = try load(files[0]).heads().union(others.flatMap { $0.heads() })
            return try timedRuns(runs, setup: { try load(files[0]) }, check: { try Self.expect($0, heads: expected) }) { document in
                for other in others { try document.merge(other: other) }
                return document
            }
        case .concurrentFull2, .concurrentFull3:
            let all = try files.map(load)
            let expected = Set(all.flatMap { $0.heads() })
            return try timedRuns(runs, setup: { Document() }, check: { try Self.expect($0, heads: expected) }) { document in
                for other in all { try document.merge(other: other) }
                return document
            }
        }
    }

    /// Throws unless `document`'s heads are `heads` (the merged replicas' heads, none of them an ancestor of another).
    static func expect(_ document: Document, heads: Set<ChangeHash>) throws {
        guard document.heads() == heads else { throw ScaleError("merged heads differ from the inputs' heads") }
    }
}

/// The milliseconds of `runs` runs of `body`, each given a fresh input made
/// by `setup` (untimed). A run's input and result are kept until its clock
/// has stopped and checked after it.
func timedRuns<Input, Output>(_ runs: Int, setup: () throws -> Input, check: (Output) throws -> Void = { _ in },
                              _ body: (Input) throws -> Output) rethrows -> [Double] {
    var times: [Double] = []
    for _ in 0..<max(1, runs) {
        let input = try setup()
        let start = DispatchTime.now().uptimeNanoseconds
        let output = try body(input)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        try withExtendedLifetime(input) { try check(output) }
    }
    return times
}

/// ``timedRuns(_:setup:check:_:)`` without an input.
func timedRuns<Output>(_ runs: Int, check: (Output) throws -> Void = { _ in }, _ body: () throws -> Output) rethrows -> [Double] {
    try timedRuns(runs, setup: {}, check: check) { _ in try body() }
}

import ArgumentParser
import Automerge
import AutomergeConformance
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `automerge-bench` with no subcommand: every benchmark of the performance
/// issue, each with its budget, in one run.
struct SuiteBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "all", abstract: "Run every benchmark with its budget.")

    @Option(help: "Runs per measurement.") var runs = 5
    @Option(help: "Items for the append/put benchmarks.") var items = 1_000_000
    @Option(help: "Run only the append/put benchmarks whose label contains this (to profile one).") var only: String?
    @Option(help: "Rust 0.11's dump program, for the loads group's budgets (see `automerge-bench loads --help`).") var rust: String?
    @Option(help: "Rust 0.11's scale program, for the scale group's budgets (see `automerge-bench scale --help`).") var rustScale: String?
    @Option(help: "Rust 0.11's memory program, for the memory group's budgets (see `automerge-bench memory --help`).") var rustMemory: String?

    /// The groups of the suite, in the order they run.
    static let groups = ["paper", "docs", "append", "merge", "changes", "loads", "scale", "memory"]

    @Argument(help: "Groups to run (\(SuiteBench.groups.joined(separator: ", "))); all when none is named.")
    var names: [String] = []

    func validate() throws {
        for name in names where !Self.groups.contains(name) {
            throw ValidationError("unknown benchmark group '\(name)'; groups: \(Self.groups.joined(separator: ", "))")
        }
    }

    func run() throws {
        print("swift-automerge-benchmarks (release build expected; median of \(runs) runs)\n")
        func wanted(_ group: String) -> Bool { names.isEmpty || names.contains(group) }

        if wanted("paper") {
            let trace = try EditTrace(contentsOf: sharedFile("traces/automerge-paper-edits.json"))
            let traceDocument = try measure("trace apply, one transaction", runs: runs, budget: 180) {
                try applyTrace(trace, commitEvery: nil)
            }
            try measure("trace apply, commit every 100 edits", runs: runs) {
                try applyTrace(trace, commitEvery: 100)
            }
            let saved = measure("trace save", runs: runs, budget: 13) { traceDocument.save() }
            // The same without DEFLATE: what the encoding costs and what compression adds.
            let uncompressed = measure("trace save, uncompressed", runs: runs) { traceDocument.save(compress: false) }
            print("    trace document: \(saved.count) bytes saved, \(uncompressed.count) uncompressed")
            try measure("trace load", runs: runs, budget: 95) { try Document(saved) }
            let memory = try MemoryBench.measureInChild(saved)
            print("    memory, trace document loaded in a fresh process: \(memory) (budget 30 MB)")
            let resident = try MemoryBench.figures(of: memory).after
            BudgetReport.add("memory after loading the trace document (fresh process)",
                             figure: String(format: "%.1f MB", resident), budget: "≤ 30 MB", verdict: verdict(resident, budget: 30))
        }

        if wanted("docs") {
            for (name, budget) in [("moby-dick", 600.0), ("monday-meeting-notes", nil)] {
                let bytes = try Data(contentsOf: sharedFile("docs/\(name).automerge"))
                let document = try measure("\(name) load", runs: runs, budget: budget) { try Document(bytes) }
                measure("\(name) save", runs: runs) { document.save() }
            }
        }

        if wanted("append") && only == nil {
            // Each in a fresh process, so that its figure does not depend on
            // what the benchmarks before it left in the heap: glibc's
            // thresholds and free lists move with every large free, and list
            // append measured up to 10% slower after text append than alone.
            for label in ["text append", "list append", "map put"] {
                let output = try runBeside("automerge-bench", arguments: [
                    "all", "append", "--only", label, "--items", "\(items)", "--runs", "\(runs)"])
                let results = output.split(separator: "\n").filter { $0.contains("µs/op") }
                // A label the child does not know would otherwise drop the figure silently.
                guard results.count == 1 else {
                    throw ValidationError("the append benchmark '\(label)' printed \(results.count) results:\n\(output)")
                }
                print(results[0])
                BudgetReport.addPerItemLine(String(results[0]))
            }
        } else if wanted("append") {
            // The tasks of automerge-swift's CollectionBenchmarks, whose
            // figures the budgets compare with: each step reads the length
            // back through the API, text appends random characters (some of
            // them emoji of one or two scalars, i.e. one or two ops), and map
            // puts format a key from an integer, in shuffled order, into a
            // map of the root.
            var random = SeededGenerator(seed: 42)
            let characters = "the quick brown fox JUMPS over a lazy dog 😀🤓⛺︎🕰️⏰ ⏱️🧭".map(String.init)
            let texts = (0..<items).map { _ in characters.randomElement(using: &random)! }
            let integers = Array(0..<items).shuffled(using: &random)
            try perItem("text append", budgetMicros: 0.3) { doc, count in
                let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
                var length = doc.length(obj: text)
                for character in texts.prefix(count) {
                    try doc.spliceText(obj: text, start: length, delete: 0, value: character)
                    length = doc.length(obj: text)
                }
            }
            try perItem("list append", budgetMicros: 0.3) { doc, count in
                let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
                for integer in integers.prefix(count) {
                    try doc.insert(obj: list, index: doc.length(obj: list), value: .Int(Int64(integer)))
                }
            }
            try perItem("map put", budgetMicros: 0.5) { doc, count in
                let map = try doc.putObject(obj: .ROOT, key: "map", ty: .Map)
                for integer in integers.prefix(count) {
                    try doc.put(obj: map, key: String(integer), value: .Int(Int64(integer)))
                }
            }
        }

        if wanted("merge") { try mergeBenchmark() }
        if wanted("changes") { try changesBenchmark() }
        if wanted("loads") {
            print("")
            try LoadsBench.parse(["--runs", "\(runs)"] + (rust.map { ["--rust", $0] } ?? [])).run()
        }
        if wanted("scale") {
            print("")
            try ScaleBench.parse(["--runs", "\(runs)"] + (rustScale.map { ["--rust", $0] } ?? [])).run()
        }
        if wanted("memory") {
            print("")
            try MemoryBench.parse(rustMemory.map { ["--rust", $0] } ?? []).run()
        }
        BudgetReport.printTable()
        print(String(format: "\npeak resident memory: %.1f MB", peakMegabytes()))
    }

    func perItem(_ label: String, budgetMicros: Double, _ body: (Document, Int) throws -> Void) throws {
        if let only, !label.contains(only) { return }
        var best = Double.infinity
        for _ in 0..<max(1, runs / 2) {
            let document = Document()
            let start = DispatchTime.now().uptimeNanoseconds
            try body(document, items)
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / Double(items)
            best = min(best, elapsed)
        }
        print(String(format: "%-44@ %9.3f µs/op at %d items   budget %.1f µs %@", label as NSString, best, items, budgetMicros,
                     verdict(best, budget: budgetMicros) as NSString))
    }

    func mergeBenchmark() throws {
        let base = Document()
        let list = try base.putObject(obj: .ROOT, key: "list", ty: .List)
        let left = base.fork()
        let right = base.fork()
        for (doc, value) in [(left, Int64(1)), (right, Int64(2))] {
            for i in 0..<100_000 {
                try doc.insert(obj: list, index: UInt64(i), value: .Int(value))
                if i % 1000 == 999 { doc.commitReproducibly() }
            }
            doc.commitReproducibly()
        }
        try measure("merge two concurrent 100,000-op histories", runs: max(1, runs / 2)) {
            let target = left.fork()
            try target.merge(other: right)
            return target
        }
    }

    func changesBenchmark() throws {
        let source = Document()
        let map = try source.putObject(obj: .ROOT, key: "map", ty: .Map)
        var encoded: [Data] = [try source.encodeChangesSince(heads: [])]
        var heads = source.heads()
        for i in 0..<10_000 {
            try source.put(obj: map, key: "k\(i % 100)", value: .Int(Int64(i)))
            source.commitReproducibly()
            encoded.append(try source.encodeChangesSince(heads: heads))
            heads = source.heads()
        }
        try measure("apply 10,000 encoded changes one by one", runs: max(1, runs / 2)) {
            let target = Document()
            for change in encoded { try target.applyEncodedChanges(encoded: change) }
            return target
        }
    }
}

/// Peak resident memory of the process.
func peakMegabytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

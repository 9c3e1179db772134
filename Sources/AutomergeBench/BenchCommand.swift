import ArgumentParser
import Automerge
import AutomergeConformance
import Foundation

/// `automerge-bench ...`: timings in release mode. Benchmarks, not tests:
/// they print figures and never fail on them.
@main
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "automerge-bench", abstract: "Run the benchmarks (use -c release).",
        subcommands: [SuiteBench.self, TraceBench.self, LoadBench.self, SaveBench.self, MemoryBench.self, CodableBench.self, HostileBench.self, SyncBench.self, StoreBench.self, ReplicateBench.self, QueryBench.self, LoadsBench.self, ScaleBench.self, ServeBench.self, ServeAttackersCommand.self],
        defaultSubcommand: SuiteBench.self)
}

/// Runs `body` `runs` times and reports the median and spread in
/// milliseconds, and whether the median meets `budget` when there is one.
///
/// The value `body` returns is kept until the clock has stopped (and the
/// last one is returned): freeing a run's result, a whole document, is not
/// part of the work measured, and inside the timed region it made every run
/// but the first slower by the time the previous document took to free.
@discardableResult
func measure<Result>(_ label: String, runs: Int, budget: Double? = nil, _ body: () throws -> Result) rethrows -> Result {
    var times: [Double] = []
    var kept: Result?
    for _ in 0..<max(1, runs) {
        kept = nil
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        kept = result
    }
    times.sort()
    let median = times[times.count / 2]
    var line = String(format: "%-44@ median %9.2f ms   min %9.2f   max %9.2f   (%d runs)", label as NSString, median, times.first!, times.last!, runs)
    if let budget {
        line += "   budget " + String(format: "%.0f ms ", budget) + verdict(median, budget: budget)
        BudgetReport.add(label, figure: String(format: "%.1f ms", median), budget: String(format: "≤ %.0f ms", budget),
                         verdict: verdict(median, budget: budget))
    }
    print(line)
    return kept!
}

/// The milliseconds `body` takes.
func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// The median of `runs` runs of `run`, which is given the run's number and
/// returns the milliseconds of its timed part (set-up and clean-up untimed).
func median(runs: Int, _ run: (Int) throws -> Double) rethrows -> Double {
    let times = try (0..<max(1, runs)).map(run).sorted()
    return times[times.count / 2]
}

/// "met", or "MISSED" with how far over the budget a figure is.
func verdict(_ figure: Double, budget: Double) -> String {
    figure <= budget ? "met" : String(format: "MISSED (%.1fx)", figure / budget)
}

/// Locates `../shared` next to the working directory's package, for default inputs.
func sharedFile(_ relative: String) -> URL {
    URL(fileURLWithPath: FileManager.default.currentDirectoryPath).deletingLastPathComponent()
        .appendingPathComponent("shared").appendingPathComponent(relative)
}

/// Applies an editing trace to a new document's text, in one transaction
/// or committing every `commitEvery` edits.
func applyTrace(_ trace: EditTrace, commitEvery: Int?) throws -> Document {
    let document = Document()
    let text = try document.putObject(obj: .ROOT, key: "text", ty: .Text)
    for (index, edit) in trace.edits.enumerated() {
        try document.spliceText(obj: text, start: edit.position, delete: edit.deleteCount, value: edit.insert)
        if let commitEvery, index % commitEvery == commitEvery - 1 { document.commitReproducibly() }
    }
    document.commitReproducibly()
    return document
}

struct TraceBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "trace", abstract: "Apply the automerge-paper editing trace.")

    @Option(help: "Trace file (default ../shared/traces/automerge-paper-edits.json).") var file: String?
    @Option(help: "Runs.") var runs = 5
    @Option(help: "Write the resulting document here (for `automerge-bench load` and `automerge-bench save`).") var saveTo: String?

    func run() throws {
        let url = file.map { URL(fileURLWithPath: $0) } ?? sharedFile("traces/automerge-paper-edits.json")
        let trace = try EditTrace(contentsOf: url)
        let document = try measure("trace apply (one transaction)", runs: runs) {
            try applyTrace(trace, commitEvery: nil)
        }
        if case .Object(let text, _) = try document.get(obj: .ROOT, key: "text") {
            print("final length: \(document.length(obj: text)) characters")
        }
        if let saveTo { try document.save().write(to: URL(fileURLWithPath: saveTo)) }
    }
}

struct LoadBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "load", abstract: "Load a file.")
    @Argument var file: String
    @Option var runs = 5
    func run() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        try measure("load \(URL(fileURLWithPath: file).lastPathComponent)", runs: runs) { try Document(bytes) }
    }
}

struct SaveBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "save", abstract: "Save a loaded file.")
    @Argument var file: String
    @Option var runs = 5
    @Flag(help: "Deflate no column: time the encoding alone.") var noCompress = false
    func run() throws {
        let document = try Document(try Data(contentsOf: URL(fileURLWithPath: file)))
        let name = URL(fileURLWithPath: file).lastPathComponent + (noCompress ? ", uncompressed" : "")
        measure("save \(name)", runs: runs) { document.save(compress: !noCompress) }
    }
}

/// Resident memory of a fresh process after loading a document: what a
/// document costs, free of whatever earlier benchmarks left in the heap;
/// with `--rust`, beside Rust 0.11's op store for the same file.
///
/// The budget compares the anonymous (heap) growth: what the document
/// holds. The file pages a load touches (the library's code, about 3 MB
/// here against 1 MB for Rust's program) are shown beside it; they are
/// paid once per process, not per document (docs/decisions.md, "Memory
/// of a loaded document").
struct MemoryBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory",
        abstract: "Resident memory after a load in a fresh process (automerge-memory-probe), per document and per op.",
        discussion: """
            --rust names a command that loads the file given as its last argument with Rust 0.11 and prints \
            `before=MB after=MB peak=MB anon-before=MB anon-after=MB` (resident memory before and after the \
            load, the peak, and the anonymous part before and after). A document's memory is the anonymous \
            resident memory (heap) the process holds after the load less before it; budget: no more than \
            Rust's. Code pages are shown beside it (without the anon fields, totals are compared).
            """)

    @Option(help: "Rust 0.11's memory program (see above).") var rust: String?
    @OptionGroup var documents: BenchDocuments

    /// One load's figures, in MB, and the document's op count (ours only).
    struct Figures {
        var before: Double
        var after: Double
        var peak: Double
        /// The growth of anonymous resident memory (heap), where known.
        var heap: Double?
        var ops: Int?
        /// The growth of all resident memory.
        var total: Double { after - before }
        /// What the budget compares: the heap growth, else the total.
        var document: Double { heap ?? total }
    }

    func run() throws {
        print("resident memory after a load, fresh process (document = heap growth; total = heap + code pages)\n")
        for (label, file) in try documents.files() {
            let ours = try Self.ours(file.path)
            var line = String(format: "%@\n  ours      %7.1f MB heap, %7.1f MB total, %7.1f MB peak",
                              label as NSString, ours.document, ours.total, ours.peak)
            if let ops = ours.ops, ops > 0 {
                line += String(format: ", %.0f heap bytes an op (%d ops)", ours.document * 1_048_576 / Double(ops), ops)
            }
            print(line)
            guard let rust else { continue }
            let reference = try Self.rust(rust, file.path)
            let compared = reference.heap == nil ? ours.total : ours.document
            let ratio = compared / reference.document
            let what = reference.heap == nil ? "total" : "heap"
            print(String(format: "  Rust 0.11 %7.1f MB %@, %7.1f MB total, %7.1f MB peak   ours %.2fx (budget 1x): %@",
                         reference.document, what, reference.total, reference.peak, ratio, ratio <= 1 ? "met" : "MISSED"))
            let name = label.split(separator: ":").first.map(String.init) ?? label
            BudgetReport.add("memory of loaded \(name) vs Rust 0.11's op store (\(what))",
                             figure: String(format: "%.1f MB against %.1f MB, %.2fx", compared, reference.document, ratio),
                             budget: "≤ 1x", verdict: ratio <= 1 ? "met" : "MISSED")
        }
        if rust == nil { print("\n(no --rust program given: Rust's figures and the budget are not shown)") }
    }

    /// Our figures, from the probe's report.
    static func ours(_ file: String) throws -> Figures { try figures(of: measureInChild(file: file)) }

    /// The figures of a report of `automerge-memory-probe`.
    static func figures(of report: String) throws -> Figures {
        func number(after marker: String) -> Double? {
            guard let range = report.range(of: marker) else { return nil }
            return Double(report[range.upperBound...].prefix { $0.isNumber || $0 == "." })
        }
        guard let after = number(after: "resident "), let before = number(after: "("), let peak = number(after: "peak ") else {
            throw ValidationError("unexpected report from automerge-memory-probe: \(report)")
        }
        let firstLine = report.prefix { $0 != "\n" }
        let ops = firstLine.range(of: "; ", options: .backwards).flatMap { Int(firstLine[$0.upperBound...].prefix(while: \.isNumber)) }
        return Figures(before: before, after: after, peak: peak, heap: number(after: "growth: anonymous "), ops: ops)
    }

    /// Rust's figures, from `before=MB after=MB peak=MB`.
    static func rust(_ command: String, _ file: String) throws -> Figures {
        let output = try shell(command, [file])
        var values: [String: Double] = [:]
        for field in output.split(whereSeparator: \.isWhitespace) {
            let parts = field.split(separator: "=")
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
        guard let before = values["before"], let after = values["after"], let peak = values["peak"] else {
            throw ValidationError("expected `before=MB after=MB peak=MB [anon-before=MB anon-after=MB]` from \(command), got: \(output)")
        }
        let heap = values["anon-after"].flatMap { after in values["anon-before"].map { after - $0 } }
        return Figures(before: before, after: after, peak: peak, heap: heap)
    }

    /// Loads `bytes` in a fresh `automerge-memory-probe` process and returns
    /// its report.
    static func measureInChild(_ bytes: Data) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("automerge-bench-\(getpid()).automerge")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try measureInChild(file: file.path)
    }

    /// Runs the probe, built beside this executable, on `file`.
    static func measureInChild(file: String) throws -> String {
        try runBeside("automerge-memory-probe", arguments: [file])
    }
}

/// This executable, symbolic links resolved.
func thisExecutable() -> URL {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
}

/// The executable `name`, built beside this one.
func besideThisExecutable(_ name: String) -> URL {
    thisExecutable().deletingLastPathComponent().appendingPathComponent(name)
}

/// Runs `executable`, built beside this one, and returns what it printed.
func runBeside(_ executable: String, arguments: [String]) throws -> String {
    let path = besideThisExecutable(executable)
    guard FileManager.default.isExecutableFile(atPath: path.path) else {
        throw ValidationError("\(path.path) is missing: build it with `swift build -c release` (it is built with the benchmarks)")
    }
    return try output(of: path, arguments: arguments, named: executable).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Runs `command` (a shell command line, such as a Rust program with its
/// options) with `arguments` appended and returns what it printed; its
/// stderr goes to ours.
func shell(_ command: String, _ arguments: [String]) throws -> String {
    try output(of: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", command + " \"$@\"", "sh"] + arguments, named: command)
}

/// What `executable` printed, or an error naming `name` if it failed.
private func output(of executable: URL, arguments: [String], named name: String) throws -> String {
    let child = Process()
    child.executableURL = executable
    child.arguments = arguments
    let pipe = Pipe()
    child.standardOutput = pipe
    try child.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    child.waitUntilExit()
    guard child.terminationStatus == 0 else {
        throw ValidationError("\(name) \(arguments.joined(separator: " ")) exited with status \(child.terminationStatus)")
    }
    return String(decoding: output, as: UTF8.self)
}

/// Encode and decode of a 10,000-element Codable model.
struct CodableBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "codable", abstract: "Encode and decode a 10,000-element model.")
    @Option var runs = 5
    @Option var count = 10_000

    struct Item: Codable, Equatable {
        var title: String
        var done: Bool
        var created: Date
        var priority: Int
    }

    struct Model: Codable, Equatable {
        var name: String
        var items: [Item]
    }

    func run() throws {
        let model = Model(name: "bench", items: (0..<count).map {
            Item(title: "item \($0)", done: $0 % 2 == 0, created: Date(timeIntervalSince1970: Double($0)), priority: $0 % 5)
        })
        let document = try measure("encode \(count) items into a new document", runs: runs) {
            let document = Document()
            try AutomergeEncoder(doc: document).encode(model)
            return document
        }
        try measure("re-encode unchanged (no ops)", runs: runs) {
            try AutomergeEncoder(doc: document).encode(model)
        }
        let decoded = try measure("decode \(count) items", runs: runs) {
            try AutomergeDecoder(doc: document).decode(Model.self)
        }
        if decoded != model { throw ValidationError("decoded model differs from the encoded one") }
    }
}

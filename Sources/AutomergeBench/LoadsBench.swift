import ArgumentParser
import Automerge
import Foundation

/// `automerge-bench loads [--rust CMD] [--baseline CMD]`: loads measured as
/// a user meets them, a whole `automerge dump FILE` process, for every
/// generated document shape and the documents of `../shared/docs`; beside
/// Rust 0.11 (and an earlier build) doing the same, alternating, in the
/// same minutes.
struct LoadsBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loads",
        abstract: "Whole-process dumps of every document shape: time and peak memory, against Rust 0.11.",
        discussion: """
            --rust and --baseline name commands that print a document's dump given its file as last argument \
            (a Rust 0.11 program that loads the file and prints it as JSON; an earlier `automerge dump`). Each \
            command and ours run alternately, each run a fresh process. Budgets: time at most 0.5x Rust's, \
            peak resident memory no more than Rust's, for the generated shapes and moby-dick; the other \
            documents of ../shared/docs are measured and reported without one (docs/decisions.md, \
            "Whole-process load budgets").
            """)

    /// The documents of `../shared/docs` held to the budgets: those of the
    /// table the budgets come from. The others are reported only: a
    /// document that loads in tens of milliseconds measures mostly the
    /// process's start (docs/decisions.md, "Whole-process load budgets").
    static let budgetedSharedDocuments: Set<String> = ["moby-dick.automerge"]

    /// Whether the budgets apply to `file`: any file but the documents of
    /// `../shared/docs` the budgets' table does not name.
    static func isBudgeted(_ file: URL) -> Bool {
        let folder = file.deletingLastPathComponent().resolvingSymlinksInPath().standardizedFileURL.path
        let shared = sharedFile("docs").resolvingSymlinksInPath().standardizedFileURL.path
        return folder != shared || budgetedSharedDocuments.contains(file.lastPathComponent)
    }

    @Option(help: "Runs per document and command.") var runs = 5
    @Option(help: "Rust 0.11's dump program (see above).") var rust: String?
    @Option(help: "An earlier build's dump command, to compare with.") var baseline: String?
    @OptionGroup var documents: BenchDocuments

    /// One run of a command: wall time and the child's peak resident memory.
    struct Run {
        var milliseconds: Double
        var peakMegabytes: Double
    }

    func run() throws {
        print("whole-process loads (`automerge dump FILE > /dev/null`; median of \(runs) runs, alternating)\n")
        let ours = besideThisExecutable("automerge").path
        var commands: [(label: String, command: [String])] = [("ours", [ours, "dump"])]
        if let baseline { commands.append(("baseline", ["/bin/sh", "-c", "exec " + baseline + " \"$0\""])) }
        if let rust { commands.append(("Rust 0.11", ["/bin/sh", "-c", "exec " + rust + " \"$0\""])) }
        for (label, file) in try documents.files() {
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            print("\(label) (\(size / 1024) KB)")
            var results = Array(repeating: [Run](), count: commands.count)
            for _ in 0..<max(1, runs) {
                for (index, command) in commands.enumerated() {
                    results[index].append(try Self.spawn(command.command + [file.path]))
                }
            }
            let medians = results.map { runs in
                Run(milliseconds: median(runs.map(\.milliseconds)), peakMegabytes: runs.map(\.peakMegabytes).max() ?? 0)
            }
            for (index, figures) in medians.enumerated() {
                var line = String(format: "  %-10@ %9.1f ms  %8.1f MB peak", commands[index].label as NSString,
                                  figures.milliseconds, figures.peakMegabytes)
                if rust != nil, commands[index].label == "ours", let reference = medians.last {
                    let time = figures.milliseconds / reference.milliseconds
                    let memory = figures.peakMegabytes / reference.peakMegabytes
                    guard Self.isBudgeted(file) else {
                        line += String(format: "   time %.2fx Rust, memory %.2fx (reported, no budget)", time, memory)
                        print(line)
                        continue
                    }
                    line += String(format: "   time %.2fx Rust (budget 0.5x): %@   memory %.2fx (budget 1x): %@",
                                   time, time <= 0.5 ? "met" : "MISSED", memory, memory <= 1 ? "met" : "MISSED")
                    let name = label.split(separator: ":").first.map(String.init) ?? label
                    BudgetReport.add("load \(name), time vs Rust 0.11", figure: String(format: "%.0f ms, %.2fx", figures.milliseconds, time),
                                     budget: "≤ 0.5x", verdict: time <= 0.5 ? "met" : "MISSED")
                    BudgetReport.add("load \(name), peak memory vs Rust 0.11",
                                     figure: String(format: "%.0f MB, %.2fx", figures.peakMegabytes, memory),
                                     budget: "≤ 1x", verdict: memory <= 1 ? "met" : "MISSED")
                }
                print(line)
            }
        }
        if rust == nil { print("\n(no --rust program given: Rust's figures and the budgets are not shown)") }
    }

    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    /// Runs `arguments` with stdout to /dev/null and returns its wall time
    /// and peak resident memory. GNU time reports the peak: a child of this
    /// process would inherit its high-water mark (Linux records the old
    /// address space's peak at `exec`), and time's is a megabyte or two.
    /// The wait is `waitpid`: Foundation's `waitUntilExit` polls its run
    /// loop and rounded short runs up to tens of milliseconds.
    static func spawn(_ arguments: [String]) throws -> Run {
        let timeTool = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: timeTool) else {
            throw ValidationError("\(timeTool) is missing: install GNU time (Debian's package `time`)")
        }
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("automerge-peak-\(getpid())")
        defer { try? FileManager.default.removeItem(at: report) }
        let argv = [timeTool, "-f", "%M", "-o", report.path] + arguments
        let start = DispatchTime.now().uptimeNanoseconds
        let status = try runToExit(argv)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        guard status == 0 else {
            throw ValidationError("\(arguments.joined(separator: " ")) exited with status \(status)")
        }
        let kilobytes = String(decoding: try Data(contentsOf: report), as: UTF8.self)
            .split(separator: "\n").last.flatMap { Double($0) } ?? 0
        return Run(milliseconds: elapsed, peakMegabytes: kilobytes / 1024)
    }

    /// Spawns `argv` (its first element an absolute path) with stdout to
    /// /dev/null, waits for it and returns its exit status.
    private static func runToExit(_ argv: [String]) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw ValidationError("cannot run \(argv[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw ValidationError("waitpid failed: \(String(cString: strerror(errno)))") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}

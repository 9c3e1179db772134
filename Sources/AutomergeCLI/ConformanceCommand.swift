import ArgumentParser
import AutomergeConformance
import Foundation

/// `automerge conformance [--impl CMD] [--json FILE]`: every document vector
/// of `Vectors/manifest.json` (built in: the sync vectors too), the sync
/// scenarios, then (built-in implementation only) a bounded random
/// convergence run. Exits 1 on any failure.
struct ConformanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "Check an implementation against the conformance vectors and convergence properties.",
        discussion: """
            With --impl, the vectors are checked against another program: `CMD dump FILE` must print \
            the canonical dump of FILE (see Vectors/README.md) and exit non-zero when it rejects the file; \
            then its writer, each part optional: `CMD save IN OUT --no-compress`, `CMD changes IN OUT` and \
            `CMD script SCRIPT.json OUT` (a part answered with exit status 64 or 2 is reported as not implemented); \
            then its sync is checked: `CMD sync-peer FILE|-` must speak the sync-peer line protocol \
            (Vectors/README.md, "Checking another implementation's sync") and every sync scenario runs between it and \
            this implementation, each side speaking first in turn.
            """)

    @Option(name: .customLong("impl"), help: "A command that follows the dump protocol (default: this implementation).")
    var command: String?

    @Option(help: "Write the report as JSON to this file.") var json: String?

    @Option(help: "The vectors directory.") var vectors = "Vectors"

    @Option(help: "Seed of the random convergence run and the lossy sync links.") var seed: UInt64 = 1

    @Flag(help: "Skip the sync scenarios.") var skipSync = false

    @Option(help: "The parts to check, comma-separated: dump, save, changes, script, sync (default: all).")
    var parts = "dump,save,changes,script,sync"

    @Option(help: "Random convergence scenarios per delivery mode (built-in only).") var scenarios = 100

    func run() throws {
        let implementation: Implementation = command.map { .external(command: $0) } ?? .builtIn
        let progress = Progress()
        let start = Date()
        let chosen = Set(parts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        let known = Set(["dump", "sync"] + WriterPart.allCases.map(\.rawValue))
        guard chosen.isSubset(of: known) else {
            throw ValidationError("unknown part(s) \(chosen.subtracting(known).sorted().joined(separator: ", ")); known: \(known.sorted().joined(separator: ", "))")
        }
        var results: [CheckResult] = []
        var summaries: [ConformanceReport.PartSummary] = []
        func record(_ part: String, _ partResults: [CheckResult], implemented: Bool = true) {
            results += partResults
            summaries.append(ConformanceReport.PartSummary(part: part, passed: partResults.filter(\.passed).count,
                                                           failed: partResults.filter { !$0.passed }.count, implemented: implemented))
        }
        let directory = URL(fileURLWithPath: vectors)
        if chosen.contains("dump") {
            record("dump", try ConformanceRunner.runVectors(in: directory, against: implementation, progress: progress.show))
            if case .builtIn = implementation {
                // Another implementation checks its sync encoder and decoder with
                // Vectors/sync itself (Vectors/README.md); here it is tested through sync-peer.
                record("sync vectors", try ConformanceRunner.runSyncVectors(in: directory, progress: progress.show))
            }
        }
        for part in WriterPart.allCases where chosen.contains(part.rawValue) {
            let outcome = try ConformanceRunner.runWriterPart(part, in: directory, against: implementation, progress: progress.show)
            record(part.rawValue, outcome.results, implemented: !outcome.notImplemented)
        }
        if !skipSync && chosen.contains("sync") {
            record("sync", ConformanceRunner.runSync(against: implementation, seed: seed, progress: progress.show))
        }
        if case .builtIn = implementation, scenarios > 0 {
            record("convergence", ConformanceRunner.runConvergence(seed: seed, count: scenarios, progress: progress.show))
        }
        progress.clear()
        let report = ConformanceReport(implementation: implementation.name, results: results, seconds: Date().timeIntervalSince(start),
                                       parts: summaries)
        print(report.text, terminator: "")
        if let json {
            try FileAccess.write(Data((report.json.serialized + "\n").utf8), to: json)
        }
        if !report.passed { throw ExitCode(1) }
    }
}

/// A one-line progress indicator on standard error, shown only on a terminal.
final class Progress {
    private let enabled = isatty(STDERR_FILENO) != 0

    func show(_ done: Int, _ total: Int, _ label: String) {
        guard enabled else { return }
        let line = "[\(done)/\(total)] \(label)"
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + String(line.prefix(100))).utf8))
    }

    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

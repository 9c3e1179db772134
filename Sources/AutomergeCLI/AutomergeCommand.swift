import ArgumentParser

/// The `automerge` command-line tool: dump and re-save files, run
/// conformance checks and benchmarks.
@main
struct AutomergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "automerge",
        abstract: "Pure-Swift Automerge: dump, save, conformance, benchmark.",
        subcommands: [DumpCommand.self, SaveCommand.self, ConformanceCommand.self, VectorsCommand.self, ConvergeCommand.self, BenchCommand.self])
}

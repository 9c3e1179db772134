import ArgumentParser
import AutomergeConformance
import Foundation

/// The `automerge` command-line tool: dump and re-save files, run
/// conformance checks and benchmarks.
@main
struct AutomergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "automerge",
        abstract: "Pure-Swift Automerge: dump, save, sync, conformance, benchmark.",
        subcommands: [DumpCommand.self, SaveCommand.self, ConformanceCommand.self, VectorsCommand.self, ConvergeCommand.self, SyncPeerCommand.self, SyncMessageCommand.self, BenchCommand.self])

    /// Parses and runs the command. A file that cannot be read or written
    /// ends it with one line on standard error and status 1
    /// (`automerge: cannot read 'x.automerge': no such file`), whichever
    /// subcommand met it and however it read the file; every other error
    /// is reported as ArgumentParser reports it.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            guard let fileError = error as? FileAccessError ?? FileAccessError(error) else { exit(withError: error) }
            FileHandle.standardError.write(Data("automerge: \(fileError)\n".utf8))
            exit(withError: ExitCode.failure)
        }
    }
}

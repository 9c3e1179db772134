import ArgumentParser
import AutomergeCommandSupport
import AutomergeConformance
import AutomergeStore
import Foundation

/// The `automerge` command-line tool: dump and re-save files, run
/// conformance checks, keep datastores, serve and sync (the benchmarks are
/// `automerge-bench`).
@main
struct AutomergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "automerge",
        abstract: "Pure-Swift Automerge: dump, save, sync, conformance, datastores, sync server.",
        subcommands: [DumpCommand.self, SaveCommand.self, ChangesCommand.self, ScriptCommand.self, ConformanceCommand.self, VectorsCommand.self, ConvergeCommand.self, SyncPeerCommand.self, SyncMessageCommand.self, StoreCommand.self, ServeCommand.self, RepoSyncCommand.self, RepoCreateCommand.self])

    /// Parses and runs the command. A file that cannot be read or written,
    /// a datastore error or another ``CommandFailure`` ends it with one
    /// line on standard error and status 1
    /// (`automerge: cannot read 'x.automerge': no such file`), whichever
    /// subcommand met it and however it read the file; every other error
    /// is reported as ArgumentParser reports it.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            guard let message = oneLineMessage(for: error) else { exit(withError: error) }
            FileHandle.standardError.write(Data("automerge: \(message)\n".utf8))
            exit(withError: ExitCode.failure)
        }
    }

    private static func oneLineMessage(for error: Error) -> String? {
        if let failure = error as? CommandFailure { return failure.description }
        if let storeError = error as? StoreError { return storeError.description }
        if let queryError = error as? QueryError { return queryError.description }
        return (error as? FileAccessError ?? FileAccessError(error))?.description
    }
}

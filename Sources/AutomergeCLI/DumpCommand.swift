import ArgumentParser
import AutomergeConformance
import Foundation

/// `automerge dump FILE`: prints the canonical dump; exits 1 when the file does not load.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "dump", abstract: "Print the canonical dump of an Automerge file.")

    @Argument(help: "The file to load.") var file: String

    func run() throws {
        let bytes = try FileAccess.read(file)
        let (json, loaded) = CanonicalDump.dump(bytes: bytes)
        print(json.serialized)
        if !loaded { throw ExitCode(1) }
    }
}

import ArgumentParser
import Automerge
import AutomergeConformance
import Foundation

/// `automerge dump FILE`: prints the canonical dump; exits 1 when the file does not load.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "dump", abstract: "Print the canonical dump of an Automerge file.")

    @Argument(help: "The file to load.") var file: String

    func run() throws {
        let bytes = try FileAccess.read(file)
        let document: Document
        do {
            document = try Document(bytes)
        } catch {
            FileHandle.standardOutput.write(Data(CanonicalDump.failure(error).bytes + [UInt8(ascii: "\n")]))
            throw ExitCode(1)
        }
        FileHandle.standardOutput.write(Data(CanonicalDump.serialized(document) + [UInt8(ascii: "\n")]))
        // The process ends here: tearing down a large document object by
        // object would cost a tenth of the command, for memory the system
        // takes back at once.
        withExtendedLifetime(document) { Foundation.exit(0) }
    }
}

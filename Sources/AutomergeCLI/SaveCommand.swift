import ArgumentParser
import Automerge
import AutomergeConformance
import Foundation

/// `automerge save IN OUT [--no-compress]`: loads IN and writes its save to OUT.
struct SaveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "save", abstract: "Load a file and write its save.")

    @Argument(help: "The file to load.") var input: String
    @Argument(help: "Where to write the save.") var output: String
    @Flag(name: .customLong("no-compress"), help: "Deflate no column (the deterministic form).") var noCompress = false

    func run() throws {
        let document = try Document(try FileAccess.read(input))
        try FileAccess.write(document.save(compress: !noCompress), to: output)
    }
}

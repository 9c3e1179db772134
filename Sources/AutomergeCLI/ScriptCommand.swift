import ArgumentParser
import Automerge
import AutomergeCommandSupport
import AutomergeConformance
import Foundation

/// `automerge script SCRIPT.json OUT`: runs an edit script (Vectors/README.md,
/// "Edit scripts") and writes its result document's uncompressed save.
struct ScriptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "script", abstract: "Run an edit script and write the result's uncompressed save.")

    @Argument(help: "The script (JSON).") var script: String
    @Argument(help: "Where to write the save.") var output: String

    func run() throws {
        let document: Document
        do {
            document = try EditScriptRunner.run(try EditScript(bytes: [UInt8](try FileAccess.read(script))))
        } catch let error as EditScriptError {
            throw CommandFailure("\(script): \(error)")
        }
        try FileAccess.write(document.save(compress: false), to: output)
    }
}

/// `automerge changes IN OUT`: writes every change of IN, as change chunks
/// one after another, in the order the document applied them.
struct ChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "changes", abstract: "Write a file's changes as change chunks.")

    @Argument(help: "The file to load.") var input: String
    @Argument(help: "Where to write the changes.") var output: String

    func run() throws {
        let document = try Document(try FileAccess.read(input))
        try FileAccess.write(try document.encodeChangesSince(heads: []), to: output)
    }
}

import ArgumentParser
import AutomergeConformance
import Foundation

/// `automerge vectors generate [--output DIR]`: rebuilds the vectors from
/// the scenario definitions in code, byte for byte the same every time.
struct VectorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vectors", abstract: "Conformance vectors.", subcommands: [Generate.self])

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate", abstract: "Rebuild the vectors directory deterministically.")

        @Option(help: "Where to write (the generated folders and manifest are replaced).") var output = "Vectors"

        func run() throws {
            let generated = try VectorGenerator.generate()
            try generated.write(to: URL(fileURLWithPath: output))
            let vectors = generated.manifest.vectors
            func count(_ expect: Vector.Expectation) -> Int { vectors.filter { $0.expect == expect }.count }
            let bytes = generated.files.values.reduce(0) { $0 + $1.count }
            let sync = generated.manifest.sync
            let syncInvalid = sync.filter { $0.expect == .invalid }.count
            print("wrote \(count(.valid)) valid, \(count(.invalid)) invalid and \(count(.either)) either-way vectors, and \(sync.count - syncInvalid) valid and \(syncInvalid) invalid sync vectors, and \(generated.manifest.scripts.count) edit scripts (\(generated.files.count) files, \(bytes) bytes) to \(output)")
        }
    }
}

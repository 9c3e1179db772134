@_spi(Conformance) import Automerge
import Foundation

extension ConformanceRunner {
    /// What checking one writer part found.
    public struct PartOutcome: Sendable {
        public var results: [CheckResult]
        /// The implementation answered the part's first use with "no such command".
        public var notImplemented: Bool
    }

    /// Checks one writer part against every input the vectors have for it:
    /// `save` with each valid vector's recorded uncompressed save, `changes`
    /// with each valid vector's change set, `script` with each script's
    /// recorded result. Categories are `PART: CATEGORY`.
    public static func runWriterPart(
        _ part: WriterPart, in directory: URL, against implementation: Implementation,
        progress: (Int, Int, String) -> Void = { _, _, _ in }
    ) throws -> PartOutcome {
        let manifest = try VectorManifest(contentsOf: directory)
        // `expected`: the recorded save a `save` or `script` run must write.
        let inputs: [(name: String, category: String, file: String, expected: String?)] = switch part {
        case .save: manifest.vectors.filter { $0.expect == .valid && $0.save != nil }.map { ($0.name, $0.category, $0.file, $0.save) }
        case .changes: manifest.vectors.filter { $0.expect == .valid }.map { ($0.name, $0.category, $0.file, nil) }
        case .script: manifest.scripts.map { ($0.name, $0.category, $0.file, $0.save) }
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)")
        try FileAccess.createDirectory(scratch.path)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let runner = PartRunner(implementation: implementation)
        var results: [CheckResult] = []
        for (index, input) in inputs.enumerated() {
            progress(index + 1, inputs.count, "\(part.rawValue) \(input.name)")
            let run = runner.run(part, input: directory.appendingPathComponent(input.file), output: scratch.appendingPathComponent("out"))
            if index == 0, PartRunner.meansNotImplemented(run) { return PartOutcome(results: [], notImplemented: true) }
            var failure: String?
            if !run.succeeded {
                failure = "the command failed\(run.status.map { " (exit status \($0))" } ?? ""): \(run.message)"
            } else if let output = run.output {
                failure = try judge(part, input: input.file, expected: input.expected, output: output, in: directory,
                                    implementation: implementation)
            } else {
                failure = "the command succeeded but wrote no output file"
            }
            results.append(CheckResult(name: input.name, category: "\(part.rawValue): \(input.category)", failure: failure))
        }
        return PartOutcome(results: results, notImplemented: false)
    }

    static func judge(_ part: WriterPart, input: String, expected: String?, output: Data, in directory: URL,
                      implementation: Implementation) throws -> String? {
        switch part {
        case .save:
            return ScriptComparison.difference(expectedSave: try FileAccess.read(directory.appendingPathComponent(expected!).path),
                                               actualSave: output)
        case .changes:
            return ChangeSetComparison.difference(expected: try Document(try FileAccess.read(directory.appendingPathComponent(input).path)),
                                                  written: output)
        case .script:
            let expectedSave = try FileAccess.read(directory.appendingPathComponent(expected!).path)
            guard let difference = ScriptComparison.difference(expectedSave: expectedSave, actualSave: output) else { return nil }
            let script = try EditScript(bytes: [UInt8](try FileAccess.read(directory.appendingPathComponent(input).path)))
            guard case .external(let command) = implementation,
                  let step = ScriptComparison.firstDivergentStep(script, BuiltInScriptImplementation(),
                                                                 ExternalScriptImplementation(command: command)) else {
                return difference
            }
            return "first divergent step: \(step), \(script.steps[step - 1].json.serialized)\n" + difference
        }
    }
}

/// Runs scripts through `CMD script SCRIPT.json OUT`.
public struct ExternalScriptImplementation: ScriptImplementation {
    public let command: String
    public init(command: String) { self.command = command }
    public var name: String { command }

    public func save(running script: EditScript) throws -> Data {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("script-\(UUID().uuidString)")
        try FileAccess.createDirectory(scratch.path)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let input = scratch.appendingPathComponent("script.json")
        try FileAccess.write(Data(script.json.serialized.utf8), to: input.path)
        let run = PartRunner(implementation: .external(command: command))
            .run(.script, input: input, output: scratch.appendingPathComponent("out.automerge"))
        guard run.succeeded, let output = run.output else { throw EditScriptError(step: nil, "\(command) script failed: \(run.message)") }
        return output
    }
}

import Automerge
import Foundation

/// The optional writer parts of the `--impl` protocol (Vectors/README.md):
/// `CMD save IN OUT --no-compress`, `CMD changes IN OUT` and
/// `CMD script SCRIPT.json OUT`.
public enum WriterPart: String, CaseIterable, Sendable {
    case save, changes, script

    /// The arguments after `CMD` for `input` and `output`.
    func arguments(_ input: String, _ output: String) -> [String] {
        switch self {
        case .save: [rawValue, input, output, "--no-compress"]
        case .changes, .script: [rawValue, input, output]
        }
    }
}

/// What one run of a part left: its status and output file.
struct PartRun {
    var succeeded: Bool
    /// The exit status when the part is an external command.
    var status: Int32?
    var output: Data?
    var message: String
}

/// Runs the parts, in process or as `CMD PART ...` through `/bin/sh`.
struct PartRunner: Sendable {
    let implementation: Implementation

    func run(_ part: WriterPart, input: URL, output: URL) -> PartRun {
        switch implementation {
        case .builtIn: return runBuiltIn(part, input: input)
        case .external(let command): return runExternal(command, part, input: input, output: output)
        }
    }

    private func runBuiltIn(_ part: WriterPart, input: URL) -> PartRun {
        do {
            let bytes = try FileAccess.read(input.path)
            let data: Data
            switch part {
            case .save: data = try Document(bytes).save(compress: false)
            case .changes: data = try Document(bytes).encodeChangesSince(heads: [])
            case .script: data = try EditScriptRunner.run(try EditScript(bytes: [UInt8](bytes))).save(compress: false)
            }
            return PartRun(succeeded: true, status: nil, output: data, message: "")
        } catch {
            return PartRun(succeeded: false, status: nil, output: nil, message: "\(error)")
        }
    }

    private func runExternal(_ command: String, _ part: WriterPart, input: URL, output: URL) -> PartRun {
        try? FileManager.default.removeItem(at: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let quoted = part.arguments("\"$0\"", "\"$1\"").joined(separator: " ")
        process.arguments = ["-c", "\(command) \(quoted)", input.path, output.path]
        let stderr = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return PartRun(succeeded: false, status: nil, output: nil, message: "could not start: \(error)") }
        let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile().prefix(400), as: UTF8.self)
        process.waitUntilExit()
        let exited = process.terminationReason == .exit
        return PartRun(succeeded: exited && process.terminationStatus == 0, status: exited ? process.terminationStatus : nil,
                       output: try? Data(contentsOf: output), message: message.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Whether a failed run says "no such command": status 64 (EX_USAGE,
    /// what swift-argument-parser and sysexits programs return for an
    /// unknown subcommand) or 2 (argparse, clap, getopt), with no output.
    static func meansNotImplemented(_ run: PartRun) -> Bool {
        !run.succeeded && run.output == nil && (run.status == 64 || run.status == 2)
    }
}

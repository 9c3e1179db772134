import Automerge
import AutomergeConformance
import Foundation
import Testing

/// A file the `automerge` tool cannot read or write ends the command with one
/// plain line naming the path and the problem, and a non-zero status.
@Suite("Command line: file errors")
struct CommandLineFileErrorTests {
    /// A scratch directory holding one file, `doc.automerge` (a small saved document).
    struct Scratch {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        var document: String { directory.appendingPathComponent("doc.automerge").path }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        init() throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let doc = Document()
            try doc.put(obj: .ROOT, key: "k", value: .String("v"))
            try doc.save().write(to: URL(fileURLWithPath: document))
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    @Test("reading: a missing file, a directory and a device each fail with a plain reason")
    func readErrors() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let missing = scratch.path("missing.automerge")
        #expect(throws: FileAccessError(.read, missing, problem: "no such file")) { try FileAccess.read(missing) }
        #expect(throws: FileAccessError(.read, scratch.directory.path, problem: "is a directory")) {
            try FileAccess.read(scratch.directory.path)
        }
        // A device can be endless: refused before a byte is read.
        #expect(throws: FileAccessError(.read, "/dev/zero", problem: "not a regular file")) { try FileAccess.read("/dev/zero") }
        #expect(try FileAccess.read(scratch.document) == Data(contentsOf: URL(fileURLWithPath: scratch.document)))
        #expect(FileAccessError(.read, missing, problem: "no such file").description == "cannot read '\(missing)': no such file")
    }

    @Test("writing: a directory, a missing directory and a file used as a directory each fail with a plain reason")
    func writeErrors() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let bytes = Data([1, 2, 3])
        #expect(throws: FileAccessError(.write, scratch.directory.path, problem: "is a directory")) {
            try FileAccess.write(bytes, to: scratch.directory.path)
        }
        let inMissing = scratch.path("no-such-dir/out.automerge")
        #expect(throws: FileAccessError(.write, inMissing, problem: "no such directory")) { try FileAccess.write(bytes, to: inMissing) }
        let underFile = scratch.document + "/out.automerge"
        #expect(throws: FileAccessError(.write, underFile, problem: "a parent is not a directory")) {
            try FileAccess.write(bytes, to: underFile)
        }
        #expect(throws: FileAccessError(.createDirectory, underFile, problem: "a parent is not a directory")) {
            try FileAccess.createDirectory(underFile)
        }
        let written = scratch.path("out.automerge")
        try FileAccess.write(bytes, to: written)
        #expect(try FileAccess.read(written) == bytes)
    }

    @Test("errors Foundation throws for a named file (as code that reads files directly meets them) read the same")
    func foundationErrors() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let missing = scratch.path("missing.automerge")
        do {
            _ = try Data(contentsOf: URL(fileURLWithPath: missing))
            Issue.record("read a missing file")
        } catch {
            #expect(FileAccessError(error) == FileAccessError(.read, missing, problem: "no such file"))
        }
        do {
            try Data([1]).write(to: scratch.directory)
            Issue.record("wrote over a directory")
        } catch {
            #expect(FileAccessError(error) == FileAccessError(.write, scratch.directory.path, problem: "is a directory"))
        }
        #expect(FileAccessError(CocoaError(.coderInvalidValue)) == nil, "an error that names no file is not a file error")
    }

    /// The `automerge` executable built beside the test bundle (`swift build --build-tests` builds both).
    static let executable: URL? = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("automerge"),
            SharedFiles.packageRoot.appendingPathComponent(".build/debug/automerge"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs the tool; returns its status, standard output and standard error.
    static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        let executable: URL = try #require(Self.executable)
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    @Test("every subcommand that reads or writes files reports a bad path in one line and exits 1",
          .enabled(if: executable != nil, "the automerge executable is not built beside the tests"))
    func commandLine() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let missing = scratch.path("x.automerge")
        let dir = scratch.directory.path
        let cases: [(arguments: [String], message: String)] = [
            (["dump", missing], "cannot read '\(missing)': no such file"),
            (["dump", dir], "cannot read '\(dir)': is a directory"),
            (["save", missing, scratch.path("out.automerge")], "cannot read '\(missing)': no such file"),
            (["save", scratch.document, dir], "cannot write '\(dir)': is a directory"),
            (["save", scratch.document, scratch.path("no-such-dir/out.automerge")],
             "cannot write '\(scratch.path("no-such-dir/out.automerge"))': no such directory"),
            (["conformance", "--vectors", scratch.path("no-vectors"), "--scenarios", "0"],
             "cannot read '\(scratch.path("no-vectors/manifest.json"))': no such file"),
            (["vectors", "generate", "--output", scratch.document],
             "cannot create directory '\(scratch.document)/either': a parent is not a directory"),
        ]
        for (arguments, message) in cases {
            let result = try Self.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == "automerge: \(message)\n", "\(arguments)")
        }
        // And a path that works still works.
        let saved = scratch.path("saved.automerge")
        #expect(try Self.run(["save", scratch.document, saved]).status == 0)
        let dump = try Self.run(["dump", saved])
        #expect(dump.status == 0 && dump.stderr.isEmpty && dump.stdout.contains("\"v\""))
    }
}

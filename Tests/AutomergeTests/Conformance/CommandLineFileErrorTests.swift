import Automerge
import AutomergeConformance
import AutomergeTestSupport
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

    @Test("every subcommand that reads or writes files reports a bad path in one line and exits 1",
          .enabled(if: AutomergeExecutable.url != nil, "the automerge executable is not built beside the tests"))
    func commandLine() async throws {
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
            let result = try await AutomergeExecutable.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == "automerge: \(message)\n", "\(arguments)")
        }
        // And a path that works still works.
        let saved = scratch.path("saved.automerge")
        #expect(try await AutomergeExecutable.run(["save", scratch.document, saved]).status == 0)
        let dump = try await AutomergeExecutable.run(["dump", saved])
        #expect(dump.status == 0 && dump.stderr.isEmpty && dump.stdout.contains("\"v\""))
    }
}

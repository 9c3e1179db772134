import Foundation

/// The `automerge` executable built beside the test bundle
/// (`swift build --build-tests` builds both), run as a user runs it.
public enum AutomergeExecutable {
    /// Where it is; nil when it was not built.
    public static let url: URL? = built("automerge")

    /// Where the benchmarks' executable, `automerge-bench`, is; nil when it was not built.
    public static let benchURL: URL? = built("automerge-bench")

    /// The executable `name` of this package, built beside the tests or in `.build/debug`.
    private static func built(_ name: String) -> URL? {
        let testsDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return [testsDirectory.appendingPathComponent(name), packageRoot.appendingPathComponent(".build/debug/\(name)")]
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// What a finished run left.
    public struct Output: Sendable {
        /// Its exit status.
        public let status: Int32
        /// Its standard output, as UTF-8.
        public let stdout: String
        /// Its standard error, as UTF-8.
        public let stderr: String
    }

    /// The reason a run could not start.
    public struct NotBuilt: Error, CustomStringConvertible {
        public var description: String { "the automerge executable is not built beside the tests" }
    }

    /// Runs the tool with `arguments` and `input` on its standard input, to
    /// its end, off the cooperative pool (see ``blockingWork(_:)``).
    ///
    /// A run still going after `timeLimit` is killed (SIGKILL) and reported
    /// on standard error: a test then fails with the command that hung,
    /// instead of holding the suite until CI's own limit.
    public static func run(_ arguments: [String], input: String = "", timeLimit: Duration = .seconds(900))
        async throws -> Output
    {
        guard let url else { throw NotBuilt() }
        return try await blockingWork {
            let process = Process()
            process.executableURL = url
            process.arguments = arguments
            let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
            (process.standardInput, process.standardOutput, process.standardError) = (stdin, stdout, stderr)
            try process.run()
            let watchdog = Watchdog(process, after: timeLimit)
            defer { watchdog.cancel() }
            // Written from its own thread, so that a large input cannot deadlock against unread output.
            let writer = Thread {
                stdin.fileHandleForWriting.write(Data(input.utf8))
                try? stdin.fileHandleForWriting.close()
            }
            writer.start()
            let errors = ErrorCollector(stderr.fileHandleForReading)
            let out = stdout.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            var errorText = String(decoding: errors.finish(), as: UTF8.self)
            if watchdog.fired { errorText += "\nkilled: `automerge \(arguments.joined(separator: " "))` ran past \(timeLimit)" }
            return Output(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: errorText)
        }
    }
}

/// Kills a child process that runs past its time limit.
private final class Watchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    private var killed = false

    init(_ process: Process, after limit: Duration) {
        let pid = process.processIdentifier
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            lock.withLock {
                guard !cancelled else { return }
                killed = true
                kill(pid, SIGKILL)
            }
        }
    }

    /// Whether it killed the process.
    var fired: Bool { lock.withLock { killed } }

    /// Stops it: the process has exited (its pid may be reused from now on).
    func cancel() { lock.withLock { cancelled = true } }
}

/// Drains a pipe on a thread of its own, so that a child writing much to
/// standard error never blocks while the parent reads standard output.
private final class ErrorCollector: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    init(_ handle: FileHandle) {
        Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    /// Everything the pipe carried; waits for its end.
    func finish() -> Data {
        done.wait()
        return data
    }
}

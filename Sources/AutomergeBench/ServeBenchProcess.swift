import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// The child process, /proc readings and limits of `automerge-bench serve` (ServeBench.swift).

/// `automerge serve --port 0` (the binary beside this one) on a new datastore, in a child process.
struct ServerProcess: @unchecked Sendable {
    let process: Process
    let port: Int
    let directory: URL

    /// Starts the server and waits for its `listening PORT` line.
    static func start() throws -> ServerProcess {
        let executable = besideThisExecutable("automerge")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("automerge-serve-bench-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--port", "0", "--store", directory.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        var line = Data()
        while line.last != UInt8(ascii: "\n") {
            let byte = pipe.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty { break }
            line += byte
        }
        let words = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard words.count == 2, words[0] == "listening", let port = Int(words[1]) else {
            process.terminate()
            throw ValidationError("\(executable.path) serve did not print `listening PORT`")
        }
        return ServerProcess(process: process, port: port, directory: directory)
    }

    /// Resident memory now and at its peak (VmRSS, VmHWM), in MB.
    func memory() -> (rss: Double, peak: Double) {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Double {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return (Double(line.split(whereSeparator: \.isWhitespace)[1]) ?? 0) / 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// SIGTERM, then SIGKILL if it has not exited within 30 s; removes the datastore and flushes the disks.
    func stop() {
        process.terminate()
        let deadline = nanoseconds() + 30_000_000_000
        while process.isRunning, nanoseconds() < deadline { usleep(50_000) }
        if process.isRunning {
            print("  (the server did not exit within 30 s of SIGTERM: killed)")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
        // The next run's commits would otherwise wait on this one's writeback.
        sync()
    }
}

/// The wall clock and the CPU time of the server and of this process (the clients) at one moment.
struct Usage {
    let time = nanoseconds()
    let server: Double
    let clients = cpuSeconds(of: "self")

    init(_ server: ServerProcess) { self.server = cpuSeconds(of: "\(server.process.processIdentifier)") }

    /// Prints the phase since `start` and returns its rate: `count` a second.
    @discardableResult
    func report(_ label: String, since start: Usage, count: Int) -> Double {
        let wall = Double(time - start.time) / 1e9
        print(padded(label, 46) + String(format: "%.2f s wall (%.0f a second), server CPU %.2f s, clients' CPU %.2f s",
                                          wall, Double(count) / wall, server - start.server, clients - start.clients))
        fflush(nil)
        return Double(count) / wall
    }
}

/// The user and system CPU seconds of process `pid` ("self" for this one), from /proc/PID/stat.
func cpuSeconds(of pid: String) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")") else { return 0 }
    let fields = stat[stat.index(after: end)...].split(separator: " ")  // from field 3, the state
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Raises the soft limit on open files to `atLeast` (within the hard
/// limit) for this process and the server it starts; returns the limit.
func raiseFileLimit(atLeast needed: UInt64) throws -> UInt64 {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw ValidationError("getrlimit failed") }
    guard limit.rlim_cur < needed else { return UInt64(limit.rlim_cur) }
    limit.rlim_cur = min(rlim_t(needed), limit.rlim_max)
    guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw ValidationError("setrlimit failed") }
    return UInt64(limit.rlim_cur)
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func with<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

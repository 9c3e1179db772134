import AutomergeRepo
import AutomergeTestSupport
import Foundation
import Testing

/// `automerge serve` as a process beside `automerge-bench serve-attackers`
/// (one hostile peer of each kind, in a process of its own): the server
/// still answers a small request, and its whole resident memory stays
/// within what it was configured to spend.
///
/// It runs in a `swift test` of its own (`AUTOMERGE_ALONE_TESTS=1`, as
/// `.ci/run` does), not beside the parallel suite: on two cores, beside the
/// suite's other tests, the debug server fell behind the attack, left a small
/// request unanswered for 120 s and passed its memory limits (issue #58's
/// finding: what the server holds grows while its bulk work lags).
@Suite("automerge serve beside every kind of attacker", .serialized, .ownThreadAlone,
       .enabled(if: ProcessInfo.processInfo.environment["AUTOMERGE_ALONE_TESTS"] == "1",
                "measures a server process; runs alone: AUTOMERGE_ALONE_TESTS=1 swift test --filter ServeUnderAttackTests"))
struct ServeUnderAttackTests {
    /// The limits the server is started with, in MiB.
    static let inboundMb = 48, outboundMb = 48, cacheMb = 32, messageMb = 8
    /// What held changes may take in all (`HeldChangeLimits` defaults), and
    /// what one document's apply may need beyond its message: the working
    /// set of the largest message on each of the server's lane threads.
    static let heldMb = 32, workingMbPerMessageMb = 6
    /// NIO's blocking pool and `serve`'s bulk pool, each a thread a core.
    static let laneThreads = 2 * ProcessInfo.processInfo.activeProcessorCount

    @Test("a small request is answered all through the attack; the server's peak RSS stays within its configured limits")
    func withinLimits() async throws {
        let executable = try #require(AutomergeExecutable.url, "the automerge executable is built beside the tests")
        let bench = try #require(AutomergeExecutable.benchURL, "automerge-bench is built beside the tests")
        guard FileManager.default.fileExists(atPath: "/proc/self/status") else { return print("skipped: no /proc") }
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("serve-attacked-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: store) }
        let (server, port) = try await startServer(executable, store: store)
        defer { if server.isRunning { server.terminate() } }
        let address = "ws://127.0.0.1:\(port)"
        // The attackers aim at one document; the small request is another's.
        let target = try await createDocument(#"{"title":"aimed at"}"#, on: address)
        let url = try await createDocument(#"{"title":"honest"}"#, on: address)
        let idle = memory(of: server).rss

        let attackers = Process()
        attackers.executableURL = bench
        attackers.arguments = ["serve-attackers", "--url", address, "--port", "\(port)",
                               "--targets", target.documentId.description]
        // Neither process's output is read: a full pipe would stall it.
        (attackers.standardInput, attackers.standardOutput, attackers.standardError) =
            (FileHandle.nullDevice, FileHandle.nullDevice, FileHandle.nullDevice)
        try attackers.run()
        // SIGKILL: a child started from a pool thread inherits its blocked SIGTERM.
        defer { if attackers.isRunning { kill(attackers.processIdentifier, SIGKILL) } }
        let attackEnds = ContinuousClock.now + .seconds(15)
        var answered = 0
        while ContinuousClock.now < attackEnds {
            // Answered at all, within 120 s: a debug server beside the attackers on two cores answered in over
            // 30 s now and then (run alone, about one run in four). How soon is `automerge-bench serve --attack`'s
            // measure, in a release build.
            let synced = try await AutomergeExecutable.run(["repo-sync", "--timeout", "120", address, url.description])
            #expect(synced.status == 0, "a small request went unanswered under attack: \(synced.stderr)")
            answered += synced.status == 0 ? 1 : 0
            try await Task.sleep(for: .seconds(1))
        }
        #expect(attackers.isRunning, "the attackers stopped early")
        kill(attackers.processIdentifier, SIGKILL)
        let peak = memory(of: server).peak
        server.terminate()
        // A shutdown waits for the grace period (5 s), then for the job running on each lane, never for those
        // queued: the attackers' largest apply takes over 10 s in a debug build alone, and beside the rest of the
        // suite on two cores it took over 60 s in CI. The bound is for a shutdown that never ends.
        let stopping = ContinuousClock.now
        #expect(try await exits(server, within: .seconds(240)),
                "the server did not exit within 240 s of SIGTERM (killed after \(ContinuousClock.now - stopping))")

        let limits = Self.inboundMb + Self.outboundMb + Self.cacheMb + Self.heldMb
            + Self.laneThreads * Self.messageMb * Self.workingMbPerMessageMb
        #expect(answered > 0)
        #expect(peak <= idle + Double(limits),
                "peak RSS \(peak) MB, idle \(idle) MB: over the configured \(limits) MB above idle")
    }

    private func createDocument(_ json: String, on address: String) async throws -> AutomergeURL {
        let created = try await AutomergeExecutable.run(["repo-create", address, json])
        try #require(created.status == 0, "\(created.stderr)")
        return try AutomergeURL(created.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private func startServer(_ executable: URL, store: URL) async throws -> (Process, Int) {
        let server = Process()
        server.executableURL = executable
        server.arguments = ["serve", "--port", "0", "--store", store.path, "--max-inbound-mb", "\(Self.inboundMb)",
                            "--max-outbound-mb", "\(Self.outboundMb)", "--document-cache-mb", "\(Self.cacheMb)",
                            "--max-message-bytes", "\(Self.messageMb << 20)"]
        let output = Pipe()
        server.standardOutput = output
        (server.standardInput, server.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice)
        try server.run()
        let line = try await firstLine(of: output)
        let port = try #require(listeningPort(line), "first line: \(line)")
        return (server, port)
    }

    /// Whether `process` exits within `limit`; killed when it does not.
    private func exits(_ process: Process, within limit: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        guard process.isRunning else { return true }
        kill(process.processIdentifier, SIGKILL)
        return false
    }

    /// Resident memory now and at its peak (VmRSS, VmHWM), in MB.
    private func memory(of process: Process) -> (rss: Double, peak: Double) {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Double {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return (Double(line.split(whereSeparator: \.isWhitespace)[1]) ?? 0) / 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }
}

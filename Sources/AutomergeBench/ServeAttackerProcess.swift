import ArgumentParser
import AutomergeCommandSupport
import AutomergeRepo
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `automerge-bench serve-attackers`: the hostile peers of `automerge-bench
/// serve --attack`, in a process of their own, until terminated. Hidden: the
/// benchmark starts it.
struct ServeAttackersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-attackers", abstract: "The hostile peers of `automerge-bench serve --attack` (started by it).",
        shouldDisplay: false)

    @Option(help: "The server's WebSocket URL.") var url: String
    @Option(help: "The server's port on 127.0.0.1 (for the raw sockets).") var port: Int
    @Option(help: "The server's peer id (asked of the server when not given).") var serverPeer: String?
    @Option(help: "The ids of honest documents to aim at, comma-separated.") var targets: String
    @Option(help: "The kinds of attackers, comma-separated (all unless given).") var kinds =
        ServeAttackers.kinds.joined(separator: ",")

    func run() throws {
        _ = try raiseFileLimit(atLeast: 4096)
        let documents = try targets.split(separator: ",").map { try DocumentId(String($0)) }
        guard !documents.isEmpty else { throw ValidationError("--targets: one document id or more") }
        let only = try ServeAttackers.kinds(parsing: kinds, option: "--kinds")
        try runBlocking { [url, port, serverPeer] in
            let peer = if let serverPeer { PeerId(serverPeer) } else { try await Self.askPeerId(of: url) }
            await ServeAttackers(url: url, port: port, targets: documents, serverPeer: peer, only: only).run()
        }
    }

    /// The peer id the server at `url` answers a join with.
    static func askPeerId(of url: String) async throws -> PeerId {
        let client = RepoClient(url: url, logger: quietLogger("automerge.bench.attackers"))
        try await client.waitUntilConnected(timeout: .seconds(30))
        let state = await client.connectionState
        await client.close()
        guard case .connected(let peer) = state else { throw CommandFailure("\(url): no peer id") }
        return peer
    }
}

/// The attackers' process, started at the lowest priority: Linux's idle
/// scheduling class (`chrt --idle 0`) when the system has it, which runs it
/// only on a core nothing else wants, or else `nice -n 19`, which still
/// takes a share of a busy core. On one machine the attack's own cost would
/// otherwise take the cores the honest clients and the server need, which a
/// remote attacker's does not.
struct AttackerProcess: @unchecked Sendable {
    let process: Process

    static func start(_ attackers: ServeAttackers) throws -> AttackerProcess {
        let executable = thisExecutable()
        let arguments = ["serve-attackers", "--url", attackers.url, "--port", "\(attackers.port)",
                         "--server-peer", attackers.serverPeer.description,
                         "--targets", attackers.targets.map(\.description).joined(separator: ","),
                         "--kinds", attackers.only.sorted().joined(separator: ",")]
        let process = Process()
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/chrt") {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/chrt")
            process.arguments = ["--idle", "0", executable.path] + arguments
        } else if FileManager.default.isExecutableFile(atPath: "/usr/bin/nice") {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
            process.arguments = ["-n", "19", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        try process.run()
        return AttackerProcess(process: process)
    }

    /// The CPU seconds the attackers have used.
    var cpu: Double { cpuSeconds(of: "\(process.processIdentifier)") }

    /// Kills the attackers (again: nothing).
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

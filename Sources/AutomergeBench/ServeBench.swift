import ArgumentParser
import Automerge
import AutomergeCommandSupport
import AutomergeRepo
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `automerge-bench serve`: an automerge-repo server (`automerge serve`, a
/// child process) under N clients of this process: connection, initial
/// sync, edit latency, and the server's memory and CPU.
struct ServeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "An automerge-repo server under N clients: connection, initial sync, edit latency, server memory.",
        discussion: """
            For each N of --clients: `automerge serve --port 0` (the binary beside this one) on a new datastore, \
            in a child process; N RepoClients in this process (no storage; the open-file limit is raised for \
            both processes when needed). Connect: all N created at once, each timed from its creation until \
            waitUntilConnected returns. Initial sync: then all N create their own document of --changes changes \
            (built beforehand, one commit each) at once, each timed from create() until waitUntilSynced returns. \
            Then for --seconds each client edits its document once a second, client i at i/N of each second. Sync \
            latency: from an edit's commit until waitUntilSynced returns (the server stored and acknowledged it); \
            propagation: until one of --observers other clients, each following one of the documents through \
            find(), sees the change. Server memory from /proc/PID/status (VmRSS, and VmHWM: the peak), CPU \
            time of both processes from /proc/PID/stat. With --attack each N runs quiet and then beside \
            one hostile peer of each kind (ServeAttackers.swift) from the start of the edits to their end, in a \
            process of their own in the idle scheduling class (a remote attacker's work takes none of the server's cores), --rounds \
            times in turn, and the honest clients' p99 sync latency over every attacked round is given as a ratio \
            to that over every quiet round.
            """)

    @Option(help: "Client counts, comma-separated.") var clients = "10,100,1000"
    @Option(help: "Seconds of edits, one a second per client.") var seconds = 10
    @Option(help: "Changes in each client's document.") var changes = 1000
    @Option(help: "Clients following other clients' documents, for the propagation latency.") var observers = 10
    @Flag(help: "Also run each N beside hostile peers, and compare.") var attack = false
    @Option(help: "With --attack, the kinds of hostile peers, comma-separated (all unless given).") var attackers =
        ServeAttackers.kinds.joined(separator: ",")
    @Option(help: "With --attack, the quiet and attacked runs made in turn for each N.") var rounds = 3

    func run() throws {
        let counts = clients.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }) else { throw ValidationError("--clients: counts such as 10,100") }
        let limit = try raiseFileLimit(atLeast: UInt64(counts.max()! + observers) * 2 + 256)
        print("automerge-repo server benchmarks: \(changes) changes a document, \(seconds) s of edits, "
              + "\(observers) observers, \(limit) file descriptors (release build expected)")
        let kinds = try ServeAttackers.kinds(parsing: attackers, option: "--attackers")
        var results: [ServeFigures] = []
        for count in counts {
            let run = ServeRun(clients: count, observers: min(observers, count), seconds: seconds, changes: changes)
            guard attack else {
                results.append(try run.run())
                continue
            }
            // Quiet and attacked in turn, each on a new server: a stall of the machine's
            // lands in either, and the p99s compared are over every round's edits.
            var quietLatency: [Double] = [], attackedLatency: [Double] = []
            for _ in 0..<rounds {
                let quiet = try run.run()
                results.append(quiet)
                var attacked = try ServeRun(clients: count, observers: min(observers, count), seconds: seconds,
                                            changes: changes, attackers: kinds).run()
                attacked.label = "attacked"
                results.append(attacked)
                quietLatency += quiet.syncLatency
                attackedLatency += attacked.syncLatency
            }
            let ratio = percentile(attackedLatency, 0.99) / max(percentile(quietLatency, 0.99), 0.001)
            print(String(format: "\n%d clients, %d rounds: p99 sync latency quiet %.2f ms, attacked %.2f ms: %.2fx (budget 2.00)",
                         count, rounds, percentile(quietLatency, 0.99), percentile(attackedLatency, 0.99), ratio))
        }
        ServeFigures.printSummary(results)
    }
}

/// One N: the figures of its run, in milliseconds and MB.
struct ServeFigures {
    var clients: Int
    var label = "quiet"
    var connect: [Double] = []
    var initialSync: [Double] = []
    var syncLatency: [Double] = []
    var propagation: [Double] = []
    var editRate = 0.0
    var rssSynced = 0.0, rssEnd = 0.0, peak = 0.0

    static func printSummary(_ rows: [ServeFigures]) {
        print("\nsummary (median / p99 in ms; edits a second, offered: the clients; server memory in MB)")
        print(padded("clients", 9) + padded("run", 10) + padded("connect", 18) + padded("initial sync", 18) + padded("edits/s", 9)
              + padded("sync latency", 20) + padded("propagation", 20) + "server RSS synced / end / peak")
        for row in rows {
            print(padded("\(row.clients)", 9) + padded(row.label, 10) + padded(pair(row.connect), 18) + padded(pair(row.initialSync), 18)
                  + padded(String(format: "%.0f", row.editRate), 9) + padded(pair(row.syncLatency), 20)
                  + padded(pair(row.propagation), 20) + String(format: "%.1f / %.1f / %.1f", row.rssSynced, row.rssEnd, row.peak))
        }
    }

    static func pair(_ values: [Double]) -> String {
        values.isEmpty ? "-" : String(format: "%.1f / %.1f", percentile(values, 0.5), percentile(values, 0.99))
    }
}

/// The value below which `fraction` of `values` lie (the median at 0.5).
func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))]
}

/// Prints one figure's median and p99 as the other benchmarks print a figure.
func reportSpread(_ label: String, _ values: [Double], _ note: String) {
    guard !values.isEmpty else { return print(padded(label, 46) + "none   (\(note))") }
    print(padded(label, 46) + String(format: "median %9.2f ms   p99 %9.2f   max %9.2f   (%@)", percentile(values, 0.5),
                                      percentile(values, 0.99), values.max()!, note))
}

func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
func millisecondsSince(_ start: UInt64) -> Double { Double(nanoseconds() - start) / 1e6 }

/// A long time limit: the benchmark measures slowness rather than fail on it.
let benchTimeout = Duration.seconds(600)

/// The benchmark run for one client count.
struct ServeRun: Sendable {
    let clients: Int
    let observers: Int
    let seconds: Int
    let changes: Int
    /// The kinds of hostile peers that run beside the honest clients during the edits (none: a quiet run).
    var attackers: Set<String> = []
    var attacked: Bool { !attackers.isEmpty }

    /// A client and the document it created.
    struct Session: Sendable {
        let client: RepoClient
        let handle: RepoDocumentHandle
    }

    func run() throws -> ServeFigures {
        print("\n\(clients) clients" + (attacked ? ", under attack" : ""))
        let start = nanoseconds()
        let documents = try Self.buildDocuments(clients, changes: changes)
        print(padded("  documents built (untimed)", 46) + String(format: "%.0f ms", millisecondsSince(start)))
        let server = try ServerProcess.start()
        defer { server.stop() }
        return try runBlocking { [self] in try await measure(url: "ws://127.0.0.1:\(server.port)", documents, server) }
    }

    func measure(url: String, _ documents: [Document], _ server: ServerProcess) async throws -> ServeFigures {
        var figures = ServeFigures(clients: clients)
        let sessions = try await setUp(url, documents, server, &figures)
        let clock = EditClock()
        let followers = try await follow(sessions, url: url, clock: clock)
        let phase = Usage(server)
        var serverPeer = PeerId("")
        if case .connected(let peer) = await sessions[0].client.connectionState { serverPeer = peer }
        let hostile = try attacked ? AttackerProcess.start(ServeAttackers(
            url: url, port: server.port, targets: sessions.prefix(ServeAttackers.targetCount).map(\.handle.id), serverPeer: serverPeer,
            only: attackers)) : nil
        defer { hostile?.stop() }
        try await editAll(sessions, clock: clock, &figures)
        if let hostile {
            print(padded("  attackers' CPU (their process, idle class)", 46) + String(format: "%.2f s", hostile.cpu))
        }
        hostile?.stop()
        figures.editRate = Usage(server).report("  edits, \(seconds) s", since: phase, count: clients * seconds)
        for follower in followers { await follower.client.close() }
        figures.propagation = clock.latencies()
        reportSpread("  propagation (edit to observer)", figures.propagation, "\(figures.propagation.count) changes seen")
        (figures.rssEnd, figures.peak) = server.memory()
        print(padded("  server RSS at the end / peak", 46) + String(format: "%.1f MB / %.1f MB", figures.rssEnd, figures.peak))
        await withTaskGroup(of: Void.self) { group in
            for session in sessions { group.addTask { await session.client.close() } }
        }
        return figures
    }

    /// Connects every client at once, then has every one create and sync its document at once.
    func setUp(_ url: String, _ documents: [Document], _ server: ServerProcess, _ figures: inout ServeFigures)
        async throws -> [Session]
    {
        var phase = Usage(server)
        let clients = try await connectAll(url, &figures)
        Usage(server).report("  connect, all \(self.clients) at once", since: phase, count: self.clients)
        phase = Usage(server)
        let sessions = try await syncAll(clients, documents, &figures)
        Usage(server).report("  initial sync, all \(self.clients) at once", since: phase, count: self.clients)
        figures.rssSynced = server.memory().rss
        print(padded("  server RSS after initial sync", 46) + String(format: "%.1f MB", figures.rssSynced))
        return sessions
    }

    func connectAll(_ url: String, _ figures: inout ServeFigures) async throws -> [RepoClient] {
        let connected = try await Self.timedAtOnce(clients) { _ in
            let client = RepoClient(url: url, logger: quietLogger("automerge.bench.serve"))
            try await client.waitUntilConnected(timeout: benchTimeout)
            return client
        }
        figures.connect = connected.map(\.time)
        reportSpread("  connect (RepoClient to connected)", figures.connect, "\(clients) clients")
        return connected.map(\.value)
    }

    func syncAll(_ clients: [RepoClient], _ documents: [Document], _ figures: inout ServeFigures) async throws
        -> [Session]
    {
        let synced = try await Self.timedAtOnce(clients.count) { index in
            let handle = try await clients[index].create(documents[index])
            try await handle.waitUntilSynced(timeout: benchTimeout)
            return Session(client: clients[index], handle: handle)
        }
        figures.initialSync = synced.map(\.time)
        reportSpread("  initial sync (create to synced)", figures.initialSync, "\(changes) changes each")
        return synced.map(\.value)
    }

    /// Runs `body` for each of 0..<count at once; returns each one's value and milliseconds, in order.
    static func timedAtOnce<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> T)
        async throws -> [(value: T, time: Double)]
    {
        try await withThrowingTaskGroup(of: (Int, T, Double).self) { group in
            for index in 0..<count {
                group.addTask {
                    let start = nanoseconds()
                    let value = try await body(index)
                    return (index, value, millisecondsSince(start))
                }
            }
            var results = [(value: T, time: Double)?](repeating: nil, count: count)
            for try await (index, value, time) in group { results[index] = (value, time) }
            return results.map { $0! }
        }
    }

    /// Observer clients, each following one document spread over the clients'.
    func follow(_ sessions: [Session], url: String, clock: EditClock) async throws -> [Session] {
        var followers: [Session] = []
        for index in 0..<observers {
            let followed = sessions[index * sessions.count / observers].handle
            let client = RepoClient(url: url, logger: quietLogger("automerge.bench.serve"))
            let handle = try await client.find(followed.id, timeout: benchTimeout)
            let changes = handle.changes(), id = followed.id
            Task { for await change in changes where change.origin == .remote { clock.arrived(id, heads: change.heads) } }
            clock.watch(followed.id)
            followers.append(Session(client: client, handle: handle))
        }
        return followers
    }

    /// Every client edits once a second for `seconds`, client i at i/N of each second.
    func editAll(_ sessions: [Session], clock: EditClock, _ figures: inout ServeFigures) async throws {
        let start = nanoseconds() + 200_000_000
        let results = try await withThrowingTaskGroup(of: ([Double], Int).self) { group in
            for (index, session) in sessions.enumerated() {
                let offset = UInt64(index) * 1_000_000_000 / UInt64(clients)
                group.addTask { try await editLoop(session, start: start + offset, clock: clock) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        figures.syncLatency = results.flatMap(\.0)
        let late = results.map(\.1).reduce(0, +)
        reportSpread("  sync latency (edit to server ack)", figures.syncLatency,
                     "\(figures.syncLatency.count) edits, \(late) over 100 ms late")
        if attacked {
            let targeted = results.prefix(ServeAttackers.targetCount).flatMap(\.0)
            reportSpread("    of the documents attackers aim at", targeted, "\(targeted.count) edits")
            let others = results.dropFirst(ServeAttackers.targetCount).flatMap(\.0)
            reportSpread("    of the others", others, "\(others.count) edits")
        }
    }

    /// One client's edits; returns their latencies and how many began over 100 ms after their time.
    func editLoop(_ session: Session, start: UInt64, clock: EditClock) async throws -> ([Double], Int) {
        var latencies: [Double] = [], late = 0
        let document = session.handle.document
        for second in 0..<seconds {
            let due = start + UInt64(second) * 1_000_000_000, current = nanoseconds()
            if due > current { try await Task.sleep(nanoseconds: due - current) }
            if current > due + 100_000_000 { late += 1 }
            try document.put(obj: .ROOT, key: "edit", value: .Int(Int64(second)))
            document.commitWith()
            let edited = nanoseconds()
            clock.edited(session.handle.id, heads: document.heads(), at: edited)
            try await session.handle.waitUntilSynced(timeout: benchTimeout)
            latencies.append(millisecondsSince(edited))
        }
        return (latencies, late)
    }

    /// `count` documents of `changes` changes each (a text typed into and
    /// keys put, one commit a change), built on every core.
    static func buildDocuments(_ count: Int, changes: Int) throws -> [Document] {
        let built = Locked([Document?](repeating: nil, count: count))
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let document = try? makeDocument(changes)
            built.with { $0[index] = document }
        }
        let documents = built.with { $0.compactMap { $0 } }
        guard documents.count == count else { throw ValidationError("a document could not be built") }
        return documents
    }

    static func makeDocument(_ changes: Int) throws -> Document {
        let document = Document()
        let text = try document.putObject(obj: .ROOT, key: "text", ty: .Text)
        document.commitWith()
        for index in 1..<max(changes, 2) {
            if index % 2 == 0 {
                try document.put(obj: .ROOT, key: "key\(index % 100)", value: .Int(Int64(index)))
            } else {
                try document.spliceText(obj: text, start: document.length(obj: text), delete: 0, value: "word\(index) ")
            }
            document.commitWith()
        }
        return document
    }
}

/// When each watched edit was made, and how long its change took to reach an
/// observer. A document's edits are made one after the other, each after
/// the last was acknowledged, so an observer that sees one has the earlier
/// ones too (heads skip those that arrived together).
final class EditClock: Sendable {
    private struct State {
        var pending: [DocumentId: [(hash: ChangeHash, time: UInt64)]] = [:]
        var latencies: [Double] = []
    }

    private let state = Locked(State())

    func watch(_ id: DocumentId) { state.with { $0.pending[id] = [] } }

    func edited(_ id: DocumentId, heads: Set<ChangeHash>, at time: UInt64) {
        state.with { state in state.pending[id]?.append(contentsOf: heads.map { ($0, time) }) }
    }

    func arrived(_ id: DocumentId, heads: Set<ChangeHash>) {
        let now = nanoseconds()
        state.with { state in
            guard let edits = state.pending[id], let last = edits.lastIndex(where: { heads.contains($0.hash) }) else { return }
            state.latencies += edits[...last].map { Double(now - $0.time) / 1e6 }
            state.pending[id] = Array(edits[(last + 1)...])
        }
    }

    func latencies() -> [Double] { state.with { $0.latencies } }
}

import ArgumentParser
import AutomergeCommandSupport
import AutomergeStore
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// `automerge-bench replicate`: a replication of N small documents into an
/// empty datastore, then of 1 changed document, then of 100, in process
/// and over a pipe: time and bytes on the wire each way.
struct ReplicateBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replicate",
        abstract: "Replication: N documents from empty, then 1 and 100 changed, in process and over a pipe.",
        discussion: """
            Each scenario replicates datastore A to datastore B (both ways, one-shot) after A's writes; the \
            clock covers the replication alone. "In process" joins the two with InProcessTransport; "over a \
            pipe", with two ByteStreamTransports on two OS pipes (the frames encoded and decoded). \
            Budgets, as ratios within the run: a replication of k changed documents sends at most 2x the \
            bytes per document of the full replication, and takes at most (k/N + 1%) of its time (a run \
            touches the changed documents, not all of them).
            """)

    @Option(help: "Documents in the full replication.") var count = 10_000

    func run() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("automerge-replicate-bench-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        print("replication benchmarks: \(count) small documents; A replicates with B both ways (release build expected)\n")
        print(padded("scenario", 40) + padded("time", 13) + padded("bytes A->B", 13) + padded("bytes B->A", 13) + "budget")
        for pipe in [false, true] {
            let folder = root.appendingPathComponent(pipe ? "pipe" : "in-process")
            let manager = try DatastoreManager(directory: folder.path)
            let a = try manager.datastoreNamed("a"), b = try manager.datastoreNamed("b")
            let transport = pipe ? "over a pipe" : "in process"
            try a.createDocumentsFromRevisions((0..<count).map(Self.newDocument))
            let full = try Self.replicate(a, b, pipe: pipe)
            report("\(count) documents from empty, \(transport)", full, budget: nil)
            for changed in [1, 100] {
                for index in 0..<changed {
                    let revision = try a.getDocumentWithId(documentId(index * (count / changed)))
                    revision.body["completed"] = true
                    try a.updateDocumentFromRevision(revision)
                }
                let figure = try Self.replicate(a, b, pipe: pipe)
                report("\(changed) changed of \(count), \(transport)", figure, budget: (full, changed))
            }
        }
    }

    struct Figure {
        var milliseconds: Double
        var summary: ReplicationSummary
    }

    /// A's bytes and time per changed document at most 2x and (k/N + 1%) of the full run's.
    func report(_ label: String, _ figure: Figure, budget: (full: Figure, changed: Int)?) {
        var line = padded(label, 40) + padded(String(format: "%.1f ms", figure.milliseconds), 13)
            + padded("\(figure.summary.bytesSent)", 13) + padded("\(figure.summary.bytesReceived)", 13)
        if let (full, changed) = budget {
            let bytesBudget = 2.0 * Double(full.summary.bytesSent) / Double(count) * Double(changed)
            let timeBudget = full.milliseconds * (Double(changed) / Double(count) + 0.01)
            let bytesVerdict = verdict(Double(figure.summary.bytesSent), budget: bytesBudget)
            let timeVerdict = verdict(figure.milliseconds, budget: timeBudget)
            line += String(format: "bytes <= %.0f %@, time <= %.1f ms %@", bytesBudget, bytesVerdict, timeBudget, timeVerdict)
            BudgetReport.add("replicate: \(label), bytes", figure: "\(figure.summary.bytesSent) B",
                             budget: String(format: "≤ %.0f B", bytesBudget), verdict: bytesVerdict)
            BudgetReport.add("replicate: \(label), time", figure: String(format: "%.1f ms", figure.milliseconds),
                             budget: String(format: "≤ %.1f ms", timeBudget), verdict: timeVerdict)
        }
        print(line)
    }

    static func newDocument(_ index: Int) -> DocumentRevision {
        let revision = DocumentRevision(docId: documentId(index))
        revision.body = ["title": .string("Item \(index)"), "priority": .int(Int64(index % 5)), "completed": false,
                         "tags": ["home", .string("t\(index % 7)")]]
        return revision
    }

    /// Replicates A with B once, both ways; the time is the replication's.
    static func replicate(_ a: Datastore, _ b: Datastore, pipe: Bool) throws -> Figure {
        let (near, far) = pipe ? pipePair() : InProcessTransport.pair()
        let start = DispatchTime.now().uptimeNanoseconds
        let summary = try runBlocking {
            async let served = b.serveReplication(over: far)
            let summary = try await Replicator(datastore: a, transport: near).run()
            _ = try await served
            return summary
        }
        return Figure(milliseconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6, summary: summary)
    }

    /// Two byte-stream transports joined by two OS pipes.
    static func pipePair() -> (any ReplicationTransport, any ReplicationTransport) {
        var forward: [Int32] = [0, 0], backward: [Int32] = [0, 0]
        _ = forward.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress!) }
        _ = backward.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress!) }
        return (ByteStreamTransport(input: backward[0], output: forward[1]),
                ByteStreamTransport(input: forward[0], output: backward[1]))
    }
}

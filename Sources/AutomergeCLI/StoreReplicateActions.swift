import ArgumentParser
import AutomergeCommandSupport
import AutomergeStore
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// `replicate --stdio`: answers a replicator on standard input and output
/// (the other side, such as `replicate-to-process`, decides the direction).
/// Prints nothing on standard output but the protocol.
struct StoreReplicate: ParsableArguments {
    @Flag(help: "Speak the replication protocol on standard input and output.") var stdio = false
    @Option(help: "Seconds the peer may stay silent while an answer is due.") var timeout: Double = 60

    func run(_ store: Datastore, _ output: inout StoreOutput) throws {
        guard stdio else { throw CommandFailure("replicate serves standard input and output only: pass --stdio") }
        let timeout = timeout
        _ = try runBlocking { try await store.serveReplication(over: ByteStreamTransport.standardIO(), timeout: timeout) }
    }
}

/// `replicate-to-process 'CMD'`: starts CMD with `/bin/sh -c`, replicates
/// with it over its standard input and output (both ways unless told), and
/// prints a one-line JSON summary.
struct StoreReplicateToProcess: ParsableArguments {
    @Argument(help: "The peer's shell command, speaking the protocol on its standard input and output (such as 'automerge store DIR NAME replicate --stdio').")
    var command: String
    @Option(help: "push, pull or both.") var direction: String = "both"
    @Option(name: .customLong("doc-ids"), help: "Pull only these documents (comma-separated).") var docIds: String?
    @Option(help: "Seconds the peer may stay silent while an answer is due.") var timeout: Double = 60

    func run(_ store: Datastore, _ output: inout StoreOutput) throws {
        let directions: [String: Replicator.Direction] = ["push": .push, "pull": .pull, "both": .both]
        guard let direction = directions[direction] else {
            throw CommandFailure("unknown direction '\(direction)': expected push, pull or both")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let toPeer = Pipe(), fromPeer = Pipe()
        process.standardInput = toPeer
        process.standardOutput = fromPeer
        do {
            try process.run()
        } catch {
            throw CommandFailure("cannot start '\(command)': \(error.localizedDescription)")
        }
        // The transport owns copies of the parent's ends; the pipes' own
        // handles (and the child's ends, which would hold the peer's output
        // open) are closed here.
        let transport = ByteStreamTransport(input: dup(fromPeer.fileHandleForReading.fileDescriptor),
                                            output: dup(toPeer.fileHandleForWriting.fileDescriptor))
        for handle in [toPeer.fileHandleForReading, toPeer.fileHandleForWriting, fromPeer.fileHandleForWriting,
                       fromPeer.fileHandleForReading] { try? handle.close() }
        let replicator = Replicator(datastore: store, transport: transport, direction: direction,
                                    pullDocumentIds: docIds.map(commaSeparated),
                                    timeout: timeout)
        let outcome = Result { try runBlocking { try await replicator.run() } }
        process.waitUntilExit()
        let summary = try outcome.get()
        guard process.terminationStatus == 0 else {
            throw CommandFailure("the peer '\(command)' exited with status \(process.terminationStatus)")
        }
        output.line(["documentsSent": .int(Int64(summary.documentsSent)),
                     "documentsReceived": .int(Int64(summary.documentsReceived)),
                     "attachmentsSent": .int(Int64(summary.attachmentsSent)),
                     "attachmentsReceived": .int(Int64(summary.attachmentsReceived)),
                     "bytesSent": .int(Int64(summary.bytesSent)), "bytesReceived": .int(Int64(summary.bytesReceived))])
    }
}

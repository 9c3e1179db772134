import ArgumentParser
import Automerge
import AutomergeConformance
import Foundation

/// `automerge sync-peer FILE|-`: this implementation's sync, driven one
/// command line at a time on standard input (see ``SyncPeerProtocol``).
struct SyncPeerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-peer",
        abstract: "Speak the sync-peer line protocol on stdin/stdout (GEN, RECV, HEADS, DUMP, SAVE, PUT, SPLICE, RESET, ENCODESTATE, DECODESTATE, READONLY, QUIT).")

    @Argument(help: "The document to start from, or - for an empty one.") var file: String

    func run() throws {
        let peer = try LocalSyncPeer(name: "sync-peer", bytes: file == "-" ? Data() : FileAccess.read(file))
        while let line = readLine(strippingNewline: true) {
            let (answer, quit) = SyncPeerProtocol.answer(line, peer: peer)
            // One write per answer: it reaches the driver at once, whole.
            FileHandle.standardOutput.write(Data((answer + "\n").utf8))
            if quit { break }
        }
    }
}

/// `automerge sync-message FILE`: a sync message, decoded, as one JSON line.
struct SyncMessageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-message",
        abstract: "Decode a sync message: {\"heads\",\"need\",\"have\",\"changes\",...} or {\"error\"} with exit 1.")

    @Argument(help: "The file holding the message's bytes.") var file: String

    func run() throws {
        let bytes = try FileAccess.read(file)
        do {
            let message = try SyncMessage(bytes: bytes)
            print(SyncMessageJSON.describe(message).serialized)
        } catch {
            print(JSONValue.object(["error": .string("\(error)")]).serialized)
            throw ExitCode(1)
        }
    }
}

@_spi(Conformance) import Automerge
import Foundation

/// Runs edit scripts on this implementation.
public enum EditScriptRunner {
    /// Runs `script` and returns its result peer's document, every peer's
    /// pending edits committed.
    public static func run(_ script: EditScript) throws(EditScriptError) -> Document {
        var peers = Peers(script.peers)
        for (offset, step) in script.steps.enumerated() {
            do {
                try peers.apply(step)
            } catch let error as EditScriptError {
                throw EditScriptError(step: offset + 1, error.reason)
            } catch {
                throw EditScriptError(step: offset + 1, "\(step.action.name) failed: \(error)")
            }
        }
        peers.commitAll()
        let result = script.result ?? script.peers[0].name
        guard let document = peers.documents[ExactString(result)] else { throw EditScriptError(step: nil, "no peer '\(result)' to give the result") }
        return document
    }

    /// What a script's result must be compared by: heads, history and dump.
    public static func expected(of document: Document) -> EditScript.Expected {
        EditScript.Expected(heads: document.heads().sorted(), changes: document.getHistory(), dump: CanonicalDump.dump(document))
    }
}

/// The documents of a running script, its save slots and each peer's time.
/// Peers and slots are named by their exact scalars, as the script's JSON
/// has them: "é" and "e\u{301}" are two peers.
private struct Peers {
    var documents: [ExactString: Document] = [:]
    var order: [ExactString] = []
    var times: [ExactString: Int64] = [:]
    var slots: [ExactString: (bytes: Data, time: Int64)] = [:]
    let first: ExactString

    init(_ peers: [EditScript.Peer]) {
        first = ExactString(peers[0].name)
        for peer in peers {
            let document = Document()
            document.actor = ActorId(data: Data(peer.actor))!
            add(ExactString(peer.name), document, time: peer.time)
        }
    }

    mutating func add(_ name: ExactString, _ document: Document, time: Int64) {
        if documents[name] == nil { order.append(name) }
        documents[name] = document
        times[name] = time
    }

    func peer(_ name: ExactString) throws(EditScriptError) -> Document {
        guard let document = documents[name] else { throw EditScriptError(step: nil, "no peer '\(name)'") }
        return document
    }

    /// Commits what is pending on `name`, stamped with its time.
    func commit(_ name: ExactString, message: String? = nil, time: Int64? = nil) {
        documents[name]?.commit(message: message, storedTime: time ?? times[name] ?? 0)
    }

    func commitAll() {
        for name in order { commit(name) }
    }

    mutating func apply(_ step: EditScript.Step) throws {
        let name = step.peer.map { ExactString($0) } ?? first
        if case .load(let slot, let actor) = step.action {
            guard let saved = slots[ExactString(slot)] else { throw EditScriptError(step: nil, "no saved slot '\(slot)'") }
            let loaded = try Document(saved.bytes)
            loaded.actor = ActorId(data: Data(actor))!
            add(name, loaded, time: times[name] ?? saved.time)
            return
        }
        let document = try peer(name)
        switch step.action {
        case .commit(let message, let time):
            commit(name, message: message, time: time)
        case .fork(let newName, let actor):
            let newName = ExactString(newName)
            guard documents[newName] == nil else { throw EditScriptError(step: nil, "fork into '\(newName)', a peer that exists") }
            commit(name)
            let fork = document.fork()
            fork.actor = ActorId(data: Data(actor))!
            add(newName, fork, time: times[name]!)
        case .merge(let from):
            let from = ExactString(from)
            guard from != name else { throw EditScriptError(step: nil, "a peer cannot merge itself") }
            let other = try peer(from)
            commit(name)
            commit(from)
            try document.merge(other: other)
        case .save(let slot):
            commit(name)
            slots[ExactString(slot)] = (document.save(), times[name]!)
        case .load:
            preconditionFailure("handled above")
        default:
            try ScriptEdit.apply(step.action, to: document)
        }
    }
}

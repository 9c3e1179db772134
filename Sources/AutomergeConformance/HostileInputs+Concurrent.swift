import Automerge
import Foundation

extension HostileInputs {
    /// A change putting one root key, then `ops - 1` changes by new actors
    /// that each depend on it alone and overwrite that put, arriving in
    /// descending byte order of actor: the first op ends with `ops - 1`
    /// successors, and each new one sorts before every one already there.
    static func concurrentOverwrites(_ ops: Int) throws -> [[UInt8]] {
        try concurrentEdits(ops) { doc in
            try doc.put(obj: .ROOT, key: "k", value: .Uint(0))
        } edit: { doc, step in
            try doc.put(obj: .ROOT, key: "k", value: .Uint(UInt64(step + 1)))
        }
    }

    /// A change making a list of one element, then `ops - 1` changes by new
    /// actors that each depend on it alone and insert after that element,
    /// arriving highest op id first: each new insert is the lowest of its
    /// siblings, placed after every one already there (RGA's sibling scan).
    static func concurrentInserts(_ ops: Int) throws -> [[UInt8]] {
        try concurrentEdits(ops) { doc in
            let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
            try doc.insert(obj: list, index: 0, value: .Uint(0))
        } edit: { doc, step in
            guard case .Object(let list, _)? = try doc.get(obj: .ROOT, key: "list") else {
                throw VectorError.generator("the base change made no list")
            }
            try doc.insert(obj: list, index: 1, value: .Uint(UInt64(step + 1)))
        }
    }

    /// The change `base` makes, then `ops - 1` one-change forks of it, each
    /// by a new actor in descending byte order, made by `edit`.
    private static func concurrentEdits(
        _ ops: Int, base: (Document) throws -> Void, edit: (Document, Int) throws -> Void
    ) throws -> [[UInt8]] {
        let origin = Document()
        origin.actor = ActorId(data: Data(repeating: 0x11, count: 16))!
        try base(origin)
        origin.commitReproducibly()
        let saved = origin.save()
        let forks = try (0..<max(0, ops - 1)).map { step in
            let fork = try Document(saved)
            fork.actor = ActorId(data: Data(actorBytes(ops - 2 - step)))!
            try edit(fork, step)
            fork.commitReproducibly()
            guard let change = Storage.uncompressedChanges(fork).last else { throw VectorError.generator("a fork made no change") }
            return change
        }
        return Storage.uncompressedChanges(origin) + forks
    }
}

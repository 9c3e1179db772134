import Foundation
import Testing
@_spi(Conformance) @testable import Automerge

/// Changes received before their dependencies wait in the queue, and apply
/// once those arrive, in Kahn order with first-in-first-out ties (Rust's
/// order, which decides how a save lists them). The queue is indexed by
/// the hashes its changes wait for, so a call costs what it brings and what
/// it releases; these tests hold the order to the plain algorithm that
/// rescans the whole queue at every call.
@Suite("Change queue")
struct ChangeQueueTests {
    /// A received change as the reference model sees it.
    struct ModelChange {
        let hash: ChangeHash
        let dependencies: [ChangeHash]
        let bytes: Data
    }

    /// The order the plain algorithm applies changes in, given batches:
    /// every call puts the queue and its new changes in one list and runs
    /// Kahn's algorithm over all of it.
    struct ReferenceQueue {
        var applied = Set<ChangeHash>()
        var queue: [ModelChange] = []
        var order: [ChangeHash] = []

        mutating func receive(_ batch: [ModelChange]) {
            var seen = Set(queue.map(\.hash))
            let fresh = batch.filter { !applied.contains($0.hash) && seen.insert($0.hash).inserted }
            let waiting = queue + fresh
            let position = Dictionary(uniqueKeysWithValues: waiting.enumerated().map { ($1.hash, $0) })
            var unsatisfied = waiting.map { $0.dependencies.filter { !applied.contains($0) }.count }
            var dependents = [[Int]](repeating: [], count: waiting.count)
            for (index, change) in waiting.enumerated() {
                for dependency in change.dependencies where !applied.contains(dependency) {
                    if let from = position[dependency] { dependents[from].append(index) }
                }
            }
            var ready = unsatisfied.indices.filter { unsatisfied[$0] == 0 }
            var head = 0
            while head < ready.count {
                for dependent in dependents[ready[head]] {
                    unsatisfied[dependent] -= 1
                    if unsatisfied[dependent] == 0 { ready.append(dependent) }
                }
                head += 1
            }
            for index in ready {
                applied.insert(waiting[index].hash)
                order.append(waiting[index].hash)
            }
            let taken = Set(ready)
            queue = waiting.indices.filter { !taken.contains($0) }.map { waiting[$0] }
        }
    }

    /// The changes of a random history: `actors` peers editing and merging
    /// each other now and then.
    static func randomHistory(seed: UInt64, actors: Int, steps: Int) throws -> [ModelChange] {
        var random = StorageTestRandom(seed: seed)
        let peers = (0..<actors).map { Document.peer(UInt8($0 + 1)) }
        for step in 0..<steps {
            let index = Int(random.next() % UInt64(actors))
            let peer = peers[index]
            let other = Int(random.next() % UInt64(actors))
            if other != index, random.next() % 4 == 0 { try peer.merge(other: peers[other]) }
            try peer.put(obj: .ROOT, key: "k\(random.next() % 8)", value: .Int(Int64(step)))
            peer.commitChange()
        }
        for peer in peers.dropFirst() { try peers[0].merge(other: peer) }
        return peers[0].getHistory().map { hash in
            let change = peers[0].change(hash: hash)!
            return ModelChange(hash: hash, dependencies: change.deps, bytes: change.bytes)
        }
    }

    @Test("shuffled batches apply in the order of the plain algorithm", arguments: UInt64(1)...UInt64(24))
    func orderMatchesThePlainAlgorithm(seed: UInt64) throws {
        let history = try Self.randomHistory(seed: seed, actors: 1 + Int(seed % 4), steps: 160)
        var random = StorageTestRandom(seed: seed &* 31)
        var delivery = history.shuffled(using: &random)
        // Some changes twice: repeats are ignored, queued or applied.
        delivery += delivery.prefix(10)
        var reference = ReferenceQueue()
        let doc = Document()
        while !delivery.isEmpty {
            let size = min(delivery.count, 1 + Int(random.next() % (seed % 3 == 0 ? 1 : 12)))
            let batch = Array(delivery.prefix(size))
            delivery.removeFirst(size)
            reference.receive(batch)
            try doc.applyEncodedChanges(encoded: batch.reduce(into: Data()) { $0.append($1.bytes) })
            #expect(doc.locked { $0.queue.count } == reference.queue.count, "seed \(seed)")
        }
        #expect(doc.getHistory() == reference.order, "seed \(seed)")
        #expect(Array(doc.locked { $0.queue }).isEmpty, "seed \(seed)")
    }

    @Test("a call visits what it brings and what it releases, not the rest of the queue")
    func callCostFollowsTheCall() throws {
        let history = try Self.randomHistory(seed: 3, actors: 1, steps: 300)
        let doc = Document()
        // Every change but the first waits: its predecessor never came.
        for change in history.dropFirst(2).reversed() { try doc.applyEncodedChanges(encoded: change.bytes) }
        #expect(doc.locked { $0.queue.count } == 298)
        let other = Document.peer(0x77)
        try other.put(obj: .ROOT, key: "x", value: .Int(1))
        let unrelated = try DocumentState.decodeChange([UInt8](other.encodeChangesSince(heads: [])))
        let order = doc.locked { state in
            ReadyOrder(fresh: [unrelated], queue: state.queue, known: KnownChanges(history: state.history, pending: nil),
                       newlyKnown: nil, dropping: [])
        }
        #expect(order.changes.count == 1)
        // The missing change releases its successor only; that one the next, and so on.
        try doc.applyEncodedChanges(encoded: history[0].bytes + history[1].bytes)
        #expect(doc.locked { $0.queue.isEmpty })
        #expect(doc.getHistory() == history.map(\.hash))
    }

    @Test("a refused call takes back the actors its changes brought")
    func refusedCallRemovesItsActors() throws {
        let doc = Document.peer(0x01)
        try doc.put(obj: .ROOT, key: "a", value: .Int(1))
        doc.commitChange()
        let before = doc.locked { $0.ops.actors.count }
        let missingObject = StoredOpId(counter: 99, actor: 0)
        let bad = changeChunk([storedPut("x", .int(1), in: missingObject)], actor: actorId(0x55), startOp: 1, dependencies: [])
        let good = changeChunk([storedPut("y", .int(1))], actor: actorId(0x66), startOp: 1, dependencies: [])
        #expect(throws: AutomergeError.self) { try doc.applyEncodedChanges(encoded: Data(good + bad)) }
        #expect(doc.locked { $0.ops.actors.count } == before)
        try doc.applyEncodedChanges(encoded: Data(good))
        #expect(doc.locked { $0.ops.actors.count } == before + 1)
        #expect(try doc.get(obj: .ROOT, key: "y") == .Scalar(.Int(1)))
    }
}

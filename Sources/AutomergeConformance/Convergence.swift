import Automerge
import Foundation

/// How peers exchange their edits in a convergence scenario.
public enum Delivery: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `Document.merge(other:)`.
    case merge
    /// Encoded change chunks (plain and compressed), split into batches that
    /// arrive in every order (all permutations up to 4 batches, a sample
    /// beyond), with duplicates and with changes before their dependencies.
    case changes
    /// Whole saved documents (compressed and not), loaded and applied as changes.
    case save
    /// The sync protocol: each pair of peers keeps its sync states across
    /// the script and syncs until neither has anything to send.
    case sync

    public var description: String { rawValue }
}

/// One step of a convergence script: an edit on a peer, a commit, or a
/// peer receiving what another one has.
public struct ScriptStep: Hashable, Sendable, CustomStringConvertible {
    public enum Action: Hashable, Sendable {
        case edit(EditChoice)
        /// Commit the open transaction (`value` picks a message and time).
        case commit(Int)
        /// Receive everything `from` has, by the scenario's delivery mode.
        case receive(from: Int)
    }

    public var peer: Int
    public var action: Action

    public init(peer: Int, action: Action) {
        self.peer = peer
        self.action = action
    }

    /// A step from small integers (`op` 0...9: 0...7 edits, 8 commit, 9 receive),
    /// so that shrinking any of them keeps a valid step.
    public init(peer: Int, op: Int, target: Int, position: Int, extent: Int, value: Int) {
        self.peer = peer
        switch op {
        case 8: action = .commit(value)
        case 9: action = .receive(from: target)
        default: action = .edit(EditChoice(kind: op, target: target, position: position, extent: extent, value: value))
        }
    }

    public static func random(peers: Int, using rng: inout SeededGenerator) -> ScriptStep {
        let peer = Int.random(in: 0..<peers, using: &rng)
        let roll = Int.random(in: 0..<20, using: &rng)
        if roll == 0 { return ScriptStep(peer: peer, action: .receive(from: Int.random(in: 0..<peers, using: &rng))) }
        if roll <= 3 { return ScriptStep(peer: peer, action: .commit(Int.random(in: 0..<8, using: &rng))) }
        return ScriptStep(peer: peer, action: .edit(EditChoice.random(using: &rng)))
    }

    public var description: String {
        switch action {
        case .edit(let choice): return "p\(peer)\(choice)"
        case .commit(let value): return "p\(peer).commit(\(value))"
        case .receive(let from): return "p\(peer)<-p\(from)"
        }
    }
}

/// A random convergence scenario: peers edit concurrently (sometimes
/// exchanging edits on the way), then everyone receives everything, and all
/// peers must end up identical.
public struct ConvergenceScenario: Hashable, Sendable, CustomStringConvertible {
    public var peers: Int
    public var steps: [ScriptStep]
    public var delivery: Delivery
    /// Seeds the order of deliveries, batch splits and which peer gets which actor id.
    public var deliverySeed: UInt64

    public init(peers: Int, steps: [ScriptStep], delivery: Delivery, deliverySeed: UInt64) {
        self.peers = max(1, peers)
        self.steps = steps
        self.delivery = delivery
        self.deliverySeed = deliverySeed
    }

    /// The scenario `automerge converge --seed S --peers N --ops M` runs.
    public static func random(seed: UInt64, peers: Int, ops: Int, delivery: Delivery) -> ConvergenceScenario {
        var rng = SeededGenerator(seed: seed)
        let steps = (0..<ops).map { _ in ScriptStep.random(peers: peers, using: &rng) }
        return ConvergenceScenario(peers: peers, steps: steps, delivery: delivery, deliverySeed: rng.next())
    }

    public var description: String {
        "\(peers) peers via \(delivery), delivery seed \(deliverySeed): [\(steps.map(\.description).joined(separator: ", "))]"
    }

    /// The actor id of each peer: one byte, in an order the seed permutes, so
    /// that which peer wins ties varies between scenarios.
    public func actor(of peer: Int) -> ActorId {
        var rng = SeededGenerator(seed: deliverySeed ^ 0xAC70)
        let order = Array(0..<peers).shuffled(using: &rng)
        return ActorId(data: Data([UInt8(truncatingIfNeeded: 0x10 + order[peer] * 0x11)]))!
    }

    /// What running a scenario produced.
    public struct Outcome: Sendable {
        /// The peers after the final exchange.
        public var documents: [Document]
        /// Every heads seen on any peer after any step.
        public var historicalHeads: [Set<ChangeHash>]
        /// Each step's effect, for reading a counterexample.
        public var trace: [String]
        /// Everything that went wrong: empty when the peers converged.
        public var failures: [String]
    }

    /// Runs the script, exchanges everything, and compares the peers.
    public func run() -> Outcome {
        var rng = SeededGenerator(seed: deliverySeed)
        var documents = (0..<peers).map { peer -> Document in
            let doc = Document()
            doc.actor = actor(of: peer)
            return doc
        }
        let syncStates = SyncStateBook()
        var historical: Set<Set<ChangeHash>> = []
        var trace: [String] = []
        var failures: [String] = []
        for step in steps {
            let peer = step.peer % peers
            let doc = documents[peer]
            do {
                switch step.action {
                case .edit(let choice):
                    trace.append("p\(peer): " + (try RandomEdits.apply(choice, to: doc)))
                case .commit(let value):
                    let message = value % 4 == 1 ? "step \(trace.count)" : nil
                    let time = Date(timeIntervalSince1970: value % 3 == 2 ? 1_700_000_000 + Double(trace.count) : 0)
                    doc.commitWith(message: message, timestamp: time)
                    trace.append("p\(peer): commit")
                case .receive(let from):
                    let source = from % peers
                    if source != peer {
                        try Exchange.deliver(from: documents[source], to: documents[peer], via: delivery, rng: &rng,
                                             states: syncStates.states(source, peer))
                        trace.append("p\(peer) <- p\(source)")
                    }
                }
            } catch {
                failures.append("step \(step) failed: \(error)")
            }
            // Reading heads commits the open transaction, so only where the
            // step committed anyway: edits between commits stay one change.
            if case .edit = step.action { continue }
            historical.insert(documents[peer].heads())
        }
        do {
            try Exchange.deliverAll(&documents, via: delivery, rng: &rng, failures: &failures, syncStates: syncStates)
        } catch {
            failures.append("exchange failed: \(error)")
        }
        failures += PeerComparison.differences(documents)
        return Outcome(documents: documents, historicalHeads: historical.sorted { $0.count < $1.count }, trace: trace, failures: failures)
    }
}

/// The sync states of each pair of peers, kept across a script.
final class SyncStateBook {
    private var states: [[Int]: (SyncState, SyncState)] = [:]

    /// The states `from` and `to` keep for each other (from's first).
    func states(_ from: Int, _ to: Int) -> (SyncState, SyncState) {
        let key = [min(from, to), max(from, to)]
        let pair = states[key] ?? (SyncState(), SyncState())
        states[key] = pair
        return from < to ? pair : (pair.1, pair.0)
    }
}

/// Moving changes between peers.
public enum Exchange {
    /// One peer receives what another has, mid-script.
    static func deliver(from source: Document, to target: Document, via delivery: Delivery, rng: inout SeededGenerator,
                        states: (SyncState, SyncState)) throws {
        switch delivery {
        case .sync:
            let outcome = try SyncSession.run(LocalSyncPeer(document: source, state: states.0),
                                              LocalSyncPeer(document: target, state: states.1), maxRounds: 20, rng: &rng)
            if !outcome.quiet { throw SyncScenarioFailure(description: "sync still sending after \(outcome.rounds) rounds") }
        case .merge:
            try target.merge(other: source)
        case .changes:
            // Everything the source has: duplicates of what the target has are ignored.
            try target.applyEncodedChanges(encoded: try source.encodeChangesSince(heads: []))
        case .save:
            try target.applyEncodedChanges(encoded: source.save(compress: Bool.random(using: &rng)))
        }
    }

    /// The final exchange: afterwards every peer has every change.
    static func deliverAll(_ documents: inout [Document], via delivery: Delivery, rng: inout SeededGenerator,
                           failures: inout [String], syncStates: SyncStateBook) throws {
        switch delivery {
        case .sync:
            // Pairs sync in random order until one pass changes nothing; a
            // pass over every pair spreads every change, so two passes must do.
            for pass in 0... {
                let before = documents.map { $0.heads() }
                for i in documents.indices.shuffled(using: &rng) {
                    for j in documents.indices.shuffled(using: &rng) where j != i {
                        try deliver(from: documents[j], to: documents[i], via: .sync, rng: &rng, states: syncStates.states(j, i))
                    }
                }
                if documents.map({ $0.heads() }) == before { break }
                if pass == 2 { failures.append("sync passes still changing documents after 3 passes"); break }
            }
        case .merge:
            for i in documents.indices {
                for j in documents.indices.shuffled(using: &rng) where j != i {
                    try documents[i].merge(other: documents[j])
                }
            }
        case .save:
            let saves = documents.indices.map { documents[$0].save(compress: $0 % 2 == 0) }
            for i in documents.indices {
                let loaded = try Document(saves[i])
                for j in documents.indices.shuffled(using: &rng) where j != i {
                    if Bool.random(using: &rng) {
                        try loaded.applyEncodedChanges(encoded: saves[j])
                    } else {
                        try loaded.merge(other: try Document(saves[j]))
                    }
                }
                documents[i] = loaded
            }
        case .changes:
            // Every change, once, as the bytes `Change.bytes` gives (compressed over 256 bytes).
            var all: [ChangeHash: Data] = [:]
            for doc in documents {
                for hash in doc.getHistory() where all[hash] == nil { all[hash] = doc.change(hash: hash)!.bytes }
            }
            let hashes = all.keys.sorted()
            for i in documents.indices {
                let have = Set(documents[i].getHistory())
                var missing = hashes.filter { !have.contains($0) }.shuffled(using: &rng)
                if missing.isEmpty { continue }
                // Duplicates: one change the peer has, and one missing change twice.
                if let known = have.sorted().randomElement(using: &rng) { missing.append(known) }
                missing.insert(missing[0], at: Int.random(in: 0...missing.count, using: &rng))
                let batches = split(missing, into: Int.random(in: 1...min(6, missing.count), using: &rng), rng: &rng)
                    .map { batch in Data(batch.flatMap { all[$0]! }) }
                let orders = permutations(of: batches.count, sampleBeyond: 4, samples: 6, rng: &rng)
                var results: [Document] = []
                for order in orders {
                    let copy = documents[i].fork()
                    for index in order {
                        try copy.applyEncodedChanges(encoded: batches[index])
                    }
                    results.append(copy)
                }
                for difference in PeerComparison.quickDifferences(results[0], Array(results.dropFirst())) {
                    failures.append("peer \(i), \(batches.count) batches delivered in \(orders.count) orders: \(difference)")
                }
                documents[i] = results[0]
            }
        }
    }

    /// Splits `items` into `count` non-empty consecutive batches at random points.
    static func split<T>(_ items: [T], into count: Int, rng: inout SeededGenerator) -> [[T]] {
        guard count > 1, items.count > 1 else { return [items] }
        let cuts = Array(1..<items.count).shuffled(using: &rng).prefix(count - 1).sorted()
        var batches: [[T]] = []
        var start = 0
        for cut in cuts + [items.count] {
            batches.append(Array(items[start..<cut]))
            start = cut
        }
        return batches
    }

    /// Every permutation of 0..<n when n <= `sampleBeyond`, else the identity,
    /// the reverse and `samples` random ones.
    public static func permutations(of n: Int, sampleBeyond: Int, samples: Int, rng: inout SeededGenerator) -> [[Int]] {
        if n <= sampleBeyond {
            var result: [[Int]] = []
            func build(_ prefix: [Int], _ rest: [Int]) {
                if rest.isEmpty { result.append(prefix); return }
                for (index, item) in rest.enumerated() {
                    var remaining = rest
                    remaining.remove(at: index)
                    build(prefix + [item], remaining)
                }
            }
            build([], Array(0..<n))
            return result
        }
        var result = [Array(0..<n), Array((0..<n).reversed())]
        for _ in 0..<samples { result.append(Array(0..<n).shuffled(using: &rng)) }
        return result
    }
}

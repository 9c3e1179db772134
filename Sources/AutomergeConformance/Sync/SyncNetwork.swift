import Automerge
import Foundation

/// Several peers connected in a topology, syncing over faulty links while
/// they edit: the property that sync converges and stops, whatever the
/// topology, the faults and the concurrent edits.
public struct SyncNetworkScenario: Hashable, Sendable, CustomStringConvertible {
    /// How the peers are connected.
    public enum Topology: Int, CaseIterable, Hashable, Sendable {
        /// 0 - 1 - 2 - ...
        case line
        /// Peer 0 connected to every other.
        case star
        /// Every pair connected.
        case mesh
    }

    /// An edit made by one peer in one round.
    public struct TimedEdit: Hashable, Sendable, CustomStringConvertible {
        public var round: Int
        public var peer: Int
        public var edit: EditChoice

        public init(round: Int, peer: Int, edit: EditChoice) {
            self.round = round
            self.peer = peer
            self.edit = edit
        }

        public var description: String { "r\(round) p\(peer)\(edit)" }
    }

    public var peers: Int
    public var topology: Topology
    public var edits: [TimedEdit]
    public var faults: LinkFaults
    /// Seeds the link faults.
    public var seed: UInt64

    public init(peers: Int, topology: Topology, edits: [TimedEdit], faults: LinkFaults, seed: UInt64) {
        self.peers = min(max(peers, 2), 16)
        self.topology = topology
        self.edits = edits
        self.faults = faults
        self.seed = seed
    }

    public var description: String {
        "\(peers) peers, \(topology), \(faults), seed \(seed): [\(edits.map(\.description).joined(separator: ", "))]"
    }

    /// The links, as pairs of peer indices.
    public var links: [(Int, Int)] {
        switch topology {
        case .line: return (1..<peers).map { ($0 - 1, $0) }
        case .star: return (1..<peers).map { (0, $0) }
        case .mesh: return (0..<peers).flatMap { a in (a + 1..<peers).map { (a, $0) } }
        }
    }

    /// The most rounds a run may take once editing has stopped: enough for
    /// a change to cross the longest path with every link restarted after
    /// each of ``maxReconnects`` stalls.
    public var settleBound: Int { (peers + 12) * (maxReconnects + 1) }
    public let maxReconnects = 40

    /// What a run produced.
    public struct Outcome: Sendable {
        public var documents: [Document]
        public var rounds: Int
        public var reconnects: Int
        public var traffic: SyncTraffic
        /// Empty when the peers converged and stopped within the bound.
        public var failures: [String]
    }

    /// Runs the rounds: edits of the round, then every link carries one
    /// message each way; after the last edit, rounds go on until one in
    /// which nobody has anything to send. A quiet network whose peers
    /// differ has lost messages: every link reconnects (each side resets
    /// its state, as after a timeout) and syncing goes on.
    public func run() -> Outcome {
        var rng = SeededGenerator(seed: seed)
        let documents = (0..<peers).map { index -> Document in
            let doc = Document()
            doc.actor = ActorId(data: Data([UInt8(0x20 + index)]))!
            return doc
        }
        let links = self.links
        // states[l] = (state at links[l].0 for .1, state at .1 for .0); queues[l][side] = messages to that side.
        var states = links.map { _ in (SyncState(), SyncState()) }
        var queues = links.map { _ in [[[UInt8]]](repeating: [], count: 2) }
        var outcome = Outcome(documents: documents, rounds: 0, reconnects: 0, traffic: SyncTraffic(), failures: [])
        let lastEditRound = edits.map(\.round).max() ?? -1
        while true {
            let round = outcome.rounds
            outcome.rounds += 1
            for edit in edits where edit.round == round {
                _ = try? RandomEdits.apply(edit.edit, to: documents[edit.peer % peers])
            }
            var sent = false
            for (index, link) in links.enumerated() {
                for side in 0..<2 {
                    let from = side == 0 ? link.0 : link.1
                    let state = side == 0 ? states[index].0 : states[index].1
                    guard let message = documents[from].generateSyncMessage(state: state) else { continue }
                    sent = true
                    outcome.traffic.messages[side] += 1
                    outcome.traffic.bytes[side] += message.count
                    if Double.random(in: 0..<1, using: &rng) < faults.drop { continue }
                    queues[index][1 - side].append([UInt8](message))
                    if Double.random(in: 0..<1, using: &rng) < faults.duplicate { queues[index][1 - side].append([UInt8](message)) }
                }
            }
            for (index, link) in links.enumerated() {
                for side in 0..<2 {
                    var waiting = queues[index][side]
                    queues[index][side] = []
                    if waiting.count > 1, Double.random(in: 0..<1, using: &rng) < faults.reorder { waiting.shuffle(using: &rng) }
                    let (peer, state) = side == 0 ? (link.0, states[index].0) : (link.1, states[index].1)
                    for message in waiting {
                        do { try documents[peer].receiveSyncMessage(state: state, message: Data(message)) } catch {
                            outcome.failures.append("round \(round): p\(peer) refused a message: \(error)")
                        }
                    }
                }
            }
            if !outcome.failures.isEmpty { return outcome }
            if round <= lastEditRound || sent {
                if round - lastEditRound > settleBound {
                    outcome.failures.append("still sending \(settleBound) rounds after the last edit")
                    return outcome
                }
                continue
            }
            let heads = documents.map { $0.heads() }
            if heads.allSatisfy({ $0 == heads[0] }) { break }
            guard outcome.reconnects < maxReconnects else {
                outcome.failures.append("quiet but diverged after \(maxReconnects) reconnects")
                return outcome
            }
            outcome.reconnects += 1
            // Half the reconnects keep the shared heads (a persisted state), half start from nothing.
            for index in states.indices {
                if outcome.reconnects % 2 == 0 {
                    states[index].0.reset()
                    states[index].1.reset()
                } else {
                    states[index] = (SyncState(), SyncState())
                }
                queues[index] = [[], []]
            }
        }
        outcome.failures += PeerComparison.differences(documents)
        return outcome
    }
}

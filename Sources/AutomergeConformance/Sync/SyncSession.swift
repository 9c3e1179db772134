import Automerge
import Foundation

/// What a link between two peers does to the messages it carries.
public struct LinkFaults: Hashable, Sendable, CustomStringConvertible {
    /// Chance that a message is lost.
    public var drop: Double
    /// Chance that a message arrives twice.
    public var duplicate: Double
    /// Chance that the messages waiting on a link arrive shuffled.
    public var reorder: Double

    public init(drop: Double = 0, duplicate: Double = 0, reorder: Double = 0) {
        self.drop = drop
        self.duplicate = duplicate
        self.reorder = reorder
    }

    /// Every message arrives once, in order.
    public static let reliable = LinkFaults()
    /// A link that loses, repeats and reorders messages.
    public static let lossy = LinkFaults(drop: 0.2, duplicate: 0.15, reorder: 0.3)

    public var isReliable: Bool { self == .reliable }

    public var description: String {
        isReliable ? "reliable" : "drop \(drop), duplicate \(duplicate), reorder \(reorder)"
    }
}

/// Messages and bytes a session put on the wire, per direction.
public struct SyncTraffic: Hashable, Sendable, CustomStringConvertible {
    public var messages = [0, 0]
    public var bytes = [0, 0]
    /// Change chunks (V1 entries) and whole documents or change batches (V2 entries) carried.
    public var changeEntries = [0, 0]

    public init() {}

    public var totalMessages: Int { messages[0] + messages[1] }
    public var totalBytes: Int { bytes[0] + bytes[1] }

    public var description: String {
        "\(totalMessages) messages (\(messages[0]) + \(messages[1])), \(totalBytes) bytes (\(bytes[0]) + \(bytes[1]))"
    }

    mutating func add(_ other: SyncTraffic) {
        for side in 0..<2 {
            messages[side] += other.messages[side]
            bytes[side] += other.bytes[side]
            changeEntries[side] += other.changeEntries[side]
        }
    }
}

/// Two peers syncing until neither has anything to say.
public enum SyncSession {
    /// How a session ended.
    public struct Outcome: Sendable {
        /// Rounds run (a round: each side may send one message and receives what arrived).
        public var rounds: Int
        /// Times both sides started fresh sync states because the link had stalled.
        public var reconnects: Int
        public var traffic: SyncTraffic
        /// Both sides generated nothing in the last round.
        public var quiet: Bool
    }

    /// Runs rounds between `peers.0` (which speaks first) and `peers.1`
    /// until a round in which neither generates a message. With
    /// `simultaneous`, both generate before either receives. Over a faulty
    /// link a quiet session whose peers still differ reconnects: both start
    /// fresh states (what a client does when a connection times out), up to
    /// `maxReconnects` times. Throws what a peer throws (a refused message).
    public static func run(
        _ first: SyncPeer, _ second: SyncPeer, faults: LinkFaults = .reliable, simultaneous: Bool = false,
        maxRounds: Int = 12, maxReconnects: Int = 0, rng: inout SeededGenerator
    ) throws -> Outcome {
        let peers = [first, second]
        var links: [[[UInt8]]] = [[], []]  // links[i]: messages on their way to peers[i]
        var outcome = Outcome(rounds: 0, reconnects: 0, traffic: SyncTraffic(), quiet: false)
        while outcome.rounds < maxRounds {
            outcome.rounds += 1
            var sent = false
            if simultaneous {
                for side in 0..<2 { sent = try send(from: side, peers, &links, faults, &outcome.traffic, &rng) || sent }
                for side in 0..<2 { try deliver(to: side, peers, &links, faults, &rng) }
            } else {
                for side in 0..<2 {
                    sent = try send(from: side, peers, &links, faults, &outcome.traffic, &rng) || sent
                    try deliver(to: 1 - side, peers, &links, faults, &rng)
                }
            }
            if sent { continue }
            if !faults.isReliable, outcome.reconnects < maxReconnects, try first.heads() != second.heads() {
                outcome.reconnects += 1
                links = [[], []]
                try first.resetState()
                try second.resetState()
                continue
            }
            outcome.quiet = true
            break
        }
        return outcome
    }

    private static func send(from side: Int, _ peers: [SyncPeer], _ links: inout [[[UInt8]]], _ faults: LinkFaults,
                             _ traffic: inout SyncTraffic, _ rng: inout SeededGenerator) throws -> Bool {
        guard let message = try peers[side].generate() else { return false }
        traffic.messages[side] += 1
        traffic.bytes[side] += message.count
        traffic.changeEntries[side] += (try? SyncMessage(decoding: message[...]))?.changes.count ?? 0
        if Double.random(in: 0..<1, using: &rng) < faults.drop { return true }
        links[1 - side].append(message)
        if Double.random(in: 0..<1, using: &rng) < faults.duplicate { links[1 - side].append(message) }
        return true
    }

    private static func deliver(to side: Int, _ peers: [SyncPeer], _ links: inout [[[UInt8]]], _ faults: LinkFaults,
                                _ rng: inout SeededGenerator) throws {
        var waiting = links[side]
        links[side] = []
        if waiting.count > 1, Double.random(in: 0..<1, using: &rng) < faults.reorder { waiting.shuffle(using: &rng) }
        for message in waiting { try peers[side].receive(message) }
    }
}

/// Comparing peers after a session.
public enum SyncComparison {
    /// Nil when both peers have the same heads and the same document; else how they differ.
    public static func difference(_ a: SyncPeer, _ b: SyncPeer) throws -> String? {
        let (headsA, headsB) = (try a.heads(), try b.heads())
        if headsA != headsB {
            return "heads differ: \(a.name) \(short(headsA)), \(b.name) \(short(headsB))"
        }
        let dumpA = CanonicalDump.dump(bytes: try a.save()).json
        let dumpB = CanonicalDump.dump(bytes: try b.save()).json
        if !JSONDiff.equal(dumpA, dumpB) {
            return "same heads, different documents:\n" + JSONDiff.describe(expected: dumpA, actual: dumpB)
        }
        return nil
    }

    static func short(_ heads: [ChangeHash]) -> String {
        "[" + heads.map { String($0.description.prefix(8)) }.joined(separator: ", ") + "]"
    }
}

import Automerge
import Foundation

/// A sync scenario: peers set up with given documents and states sync
/// until quiet, and must end as the scenario says (usually: converged).
/// Scenarios take their peers from a factory, so that each runs with both
/// sides in this process or with one side another implementation.
public struct SyncScenario: Sendable {
    public let name: String
    let body: @Sendable (inout SyncScenarioContext) throws -> Void

    init(_ name: String, _ body: @escaping @Sendable (inout SyncScenarioContext) throws -> Void) {
        self.name = name
        self.body = body
    }

    /// What a run found.
    public struct Result: Sendable {
        public var failure: String?
        /// Why the scenario did not run (a peer lacks an optional command).
        public var skipped: String?
        public var traffic = SyncTraffic()
        public var rounds = 0
        public var reconnects = 0
    }

    /// Runs the scenario with peers from `makePeer(side, savedDocument)`
    /// (empty bytes: an empty document); side 0 speaks first.
    public func run(seed: UInt64 = 1, makePeer: @escaping (Int, Data) throws -> SyncPeer) -> Result {
        var context = SyncScenarioContext(makePeer: makePeer, rng: SeededGenerator(seed: seed))
        do {
            try body(&context)
        } catch SyncPeerError.unsupported(let what) {
            context.result.skipped = "a peer does not implement \(what)"
        } catch let failure as SyncScenarioFailure {
            context.result.failure = failure.description
        } catch {
            context.result.failure = "\(error)"
        }
        return context.result
    }
}

/// A scenario's expectation that did not hold.
struct SyncScenarioFailure: Error, CustomStringConvertible {
    let description: String
}

/// What a scenario's body works with.
public struct SyncScenarioContext {
    let makePeer: (Int, Data) throws -> SyncPeer
    var rng: SeededGenerator
    var result = SyncScenario.Result()

    /// The peer for `side`, holding `document` (saved) or nothing.
    func peer(_ side: Int, _ document: Document? = nil) throws -> SyncPeer {
        try makePeer(side, document?.save() ?? Data())
    }

    /// Syncs until quiet; fails unless quiet within `maxRounds`. Returns the session's traffic.
    @discardableResult
    mutating func sync(_ a: SyncPeer, _ b: SyncPeer, simultaneous: Bool = false, faults: LinkFaults = .reliable,
                       maxRounds: Int = 12, maxReconnects: Int = 0) throws -> SyncTraffic {
        let outcome = try SyncSession.run(a, b, faults: faults, simultaneous: simultaneous, maxRounds: maxRounds,
                                          maxReconnects: maxReconnects, rng: &rng)
        result.traffic.add(outcome.traffic)
        result.rounds += outcome.rounds
        result.reconnects += outcome.reconnects
        guard outcome.quiet else {
            throw SyncScenarioFailure(description: "still sending after \(outcome.rounds) rounds (\(outcome.traffic))")
        }
        return outcome.traffic
    }

    /// Fails unless both peers hold the same changes and the same document.
    func expectConverged(_ a: SyncPeer, _ b: SyncPeer, _ when: String = "after sync") throws {
        if let difference = try SyncComparison.difference(a, b) {
            throw SyncScenarioFailure(description: "\(when): \(difference)")
        }
    }

    /// Fails unless `condition` holds.
    func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw SyncScenarioFailure(description: message()) }
    }
}

/// Documents the scenarios start from, built here with fixed actors.
enum SyncFixtures {
    static func actor(_ hex: String) -> ActorId { ActorId(hexString: hex)! }

    /// A document of `changes` changes by `actor`: puts, a list and a text.
    static func document(actor: String = "aa", changes: Int, tag: String = "base") -> Document {
        let doc = Document()
        doc.actor = Self.actor(actor)
        extend(doc, changes: changes, tag: tag)
        return doc
    }

    /// Adds `changes` changes to `doc`.
    static func extend(_ doc: Document, changes: Int, tag: String) {
        for index in 0..<changes {
            switch index % 3 {
            case 0: try! doc.put(obj: .ROOT, key: "\(tag)-\(index % 7)", value: .Int(Int64(index)))
            case 1:
                let text: ObjId
                if case .Object(let id, .Text)? = try! doc.get(obj: .ROOT, key: "text") { text = id } else {
                    text = try! doc.putObject(obj: .ROOT, key: "text", ty: .Text)
                }
                try! doc.spliceText(obj: text, start: 0, delete: 0, value: "\(tag) \(index). ")
            default:
                let list: ObjId
                if case .Object(let id, .List)? = try! doc.get(obj: .ROOT, key: "list") { list = id } else {
                    list = try! doc.putObject(obj: .ROOT, key: "list", ty: .List)
                }
                try! doc.insert(obj: list, index: 0, value: .String("\(tag)\(index)"))
            }
            doc.commitReproducibly()
        }
    }

    /// A copy of `doc` writing as `actor`.
    static func fork(_ doc: Document, actor: String) -> Document {
        let copy = doc.fork()
        copy.actor = Self.actor(actor)
        return copy
    }

    /// A copy of `doc` writing as `actor`, with `changes` changes of its own
    /// on top (see ``extend(_:changes:tag:)``): a branch that diverges from `doc`.
    static func fork(_ doc: Document, actor: String, adding changes: Int, tag: String) -> Document {
        let copy = fork(doc, actor: actor)
        extend(copy, changes: changes, tag: tag)
        return copy
    }
}

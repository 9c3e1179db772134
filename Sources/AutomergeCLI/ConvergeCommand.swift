import ArgumentParser
import Automerge
import AutomergeConformance
import Foundation

/// `automerge converge --seed S --peers N --ops M [--via merge|changes|save|sync]`:
/// one random convergence scenario, reproducible from its seed.
struct ConvergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "converge", abstract: "Run one random convergence scenario.")

    @Option(help: "The seed that reproduces the scenario.") var seed: UInt64
    @Option(help: "Number of peers.") var peers = 3
    @Option(help: "Number of script steps (edits, commits, exchanges).") var ops = 40
    @Option(help: "How peers exchange edits: merge, changes, save or sync.") var via = "merge"
    @Flag(help: "Print every step.") var trace = false

    func validate() throws {
        guard Delivery(rawValue: via) != nil else { throw ValidationError("--via must be merge, changes, save or sync") }
        guard (1...64).contains(peers) else { throw ValidationError("--peers must be between 1 and 64") }
        guard ops >= 0 else { throw ValidationError("--ops must not be negative") }
    }

    func run() throws {
        let scenario = ConvergenceScenario.random(seed: seed, peers: peers, ops: ops, delivery: Delivery(rawValue: via)!)
        print("seed \(seed): \(peers) peers, \(ops) steps, via \(via)")
        let outcome = scenario.run()
        if trace { outcome.trace.forEach { print("  " + $0) } }
        if outcome.failures.isEmpty {
            let doc = outcome.documents[0]
            print("converged: \(doc.getHistory().count) changes, heads \(doc.heads().sorted().map { String($0.description.prefix(12)) })")
        } else {
            print("DIVERGED:")
            outcome.failures.forEach { print("  " + $0) }
            print("reproduce with: automerge converge --seed \(seed) --peers \(peers) --ops \(ops) --via \(via)")
            throw ExitCode(1)
        }
    }
}

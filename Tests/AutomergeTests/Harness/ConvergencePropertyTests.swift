import Automerge
import AutomergeConformance
import Foundation
import PropertyBased
import Testing
import AutomergeTestSupport

/// Generators of convergence scripts. Every field is a small integer that
/// shrinks towards 0, and every combination is a valid script, so a failing
/// case shrinks to a short script of simple edits (see Vectors/README.md
/// for one such counterexample).
enum ScriptGen {
    static func step(peers: Int) -> Generator<ScriptStep, some SendableSequenceType> {
        zip(Gen.int(in: 0...(peers - 1)), Gen.int(in: 0...9), Gen.int(in: 0...15), Gen.int(in: 0...15),
            Gen.int(in: 0...7), Gen.int(in: 0...63))
            .map { ScriptStep(peer: $0.0, op: $0.1, target: $0.2, position: $0.3, extent: $0.4, value: $0.5) }
    }

    /// 2...5 peers, up to `maxSteps` steps, exchanged by `delivery`.
    static func scenario(_ delivery: Delivery, maxSteps: Int) -> Generator<ConvergenceScenario, some SendableSequenceType> {
        zip(step(peers: 5).array(of: 1...maxSteps), Gen.int(in: 2...5), Gen.uint64(in: 0...UInt64(UInt32.max)))
            .map { ConvergenceScenario(peers: $0.1, steps: $0.0, delivery: delivery, deliverySeed: $0.2) }
    }

    /// Independent edits of three peers (no exchanges), for the merge algebra.
    static let edits = zip(Gen.int(in: 0...7), Gen.int(in: 0...15), Gen.int(in: 0...15), Gen.int(in: 0...7), Gen.int(in: 0...63))
        .map { EditChoice(kind: $0.0, target: $0.1, position: $0.2, extent: $0.3, value: $0.4) }
        .array(of: 0...12)
}

/// What a failing case prints besides the shrunk script: what each step did.
func report(_ scenario: ConvergenceScenario, _ outcome: ConvergenceScenario.Outcome) -> Comment {
    "\(outcome.failures.joined(separator: "\n"))\nsteps:\n  \(outcome.trace.joined(separator: "\n  "))"
}
extension Harness {
    /// Serialized: each property runs its cases synchronously on one of
    /// Swift's cooperative threads (two on a 2-core machine) for minutes;
    /// run side by side they held both, and the in-process servers of
    /// other suites, whose deadlines are wall-clock time, starved.
    @Suite("Harness: convergence properties", .serialized, .ownThread)
    struct ConvergencePropertyTests {
        /// By `merge`; by change chunks delivered in every order, with
        /// duplicates and missing dependencies; by saved documents.
        @Test("peers converge", arguments: [(Delivery.merge, 200, 30), (.changes, 120, 24), (.save, 120, 24)])
        func converge(delivery: Delivery, count: Int, maxSteps: Int) async {
            await propertyCheck(count: count, input: ScriptGen.scenario(delivery, maxSteps: maxSteps)) { scenario in
                let outcome = scenario.run()
                #expect(outcome.failures.isEmpty, report(scenario, outcome))
            }
        }

        @Test("forkAt(heads: h) equals the document built from the changes up to h, for historical heads h")
        func forkAtMatchesHistory() async {
            await propertyCheck(count: 80, input: ScriptGen.scenario(.merge, maxSteps: 24)) { scenario in
                let outcome = scenario.run()
                let doc = outcome.documents[0]
                var points = outcome.historicalHeads.filter { !$0.isEmpty }
                points += doc.getHistory().map { [$0] }
                for heads in Set(points).sorted(by: { $0.sorted().lexicographicallyPrecedes($1.sorted()) }).prefix(8) {
                    do {
                        let forked = try doc.forkAt(heads: heads)
                        let rebuilt = try PeerComparison.rebuild(PeerComparison.canonicalChanges(doc, upTo: heads))
                        let differences = PeerComparison.differences([forked, rebuilt])
                        #expect(differences.isEmpty, "at heads \(heads.sorted()): \(differences)\n\(report(scenario, outcome))")
                        #expect(forked.heads() == heads)
                    } catch {
                        Issue.record("forkAt(\(heads)) failed: \(error)")
                    }
                }
            }
        }

        @Test("merge is idempotent, commutative and associative")
        func mergeAlgebra() async {
            await propertyCheck(count: 200, input: ScriptGen.edits, ScriptGen.edits, ScriptGen.edits) { e1, e2, e3 in
                let base = Document()
                base.actor = ActorId(hexString: "01")!
                try RandomEdits.apply(EditChoice(kind: 2, target: 0, position: 1, extent: 0, value: 1), to: base)
                let peers = zip(["aa", "bb", "cc"], [e1, e2, e3]).map { hex, edits -> Document in
                    let doc = base.fork()
                    doc.actor = ActorId(hexString: hex)!
                    for edit in edits { _ = try? RandomEdits.apply(edit, to: doc) }
                    return doc
                }
                func merged(_ docs: Document...) throws -> Document {
                    let result = docs[0].fork()
                    for doc in docs.dropFirst() { try result.merge(other: doc) }
                    return result
                }
                let (a, b, c) = (peers[0], peers[1], peers[2])

                let once = try merged(a, b)
                let twice = try merged(a, b, b)
                let self_ = try merged(a, a)
                #expect(PeerComparison.differences([once, twice]).isEmpty, "merging twice differs from once")
                #expect(twice.getHistory() == once.getHistory())
                #expect(PeerComparison.differences([a, self_]).isEmpty, "merging a document into itself changed it")

                let ab = try merged(a, b), ba = try merged(b, a)
                #expect(PeerComparison.differences([ab, ba]).isEmpty, "a+b differs from b+a")

                let left = try merged(try merged(a, b), c), right = try merged(a, try merged(b, c))
                #expect(PeerComparison.differences([left, right]).isEmpty, "(a+b)+c differs from a+(b+c)")
            }
        }
    }
}

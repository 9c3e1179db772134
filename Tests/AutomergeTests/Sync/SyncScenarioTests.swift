import AutomergeConformance
import Foundation
import PropertyBased
import Testing
import AutomergeTestSupport

/// Every scenario `automerge conformance` runs, between two peers of this package.
@Suite("Sync: scenarios", .ownThread)
struct SyncScenarioTests {
    @Test("scenario", arguments: SyncScenario.all.map(\.name))
    func scenario(name: String) throws {
        let scenario = try #require(SyncScenario.all.first { $0.name == name })
        let result = scenario.run { _, bytes in try LocalSyncPeer(bytes: bytes) }
        #expect(result.skipped == nil)
        #expect(result.failure == nil, "\(result.failure ?? "")")
    }

    @Test("converge --via sync")
    func convergeViaSync() {
        for seed in UInt64(1)...20 {
            let outcome = ConvergenceScenario.random(seed: seed, peers: 4, ops: 50, delivery: .sync).run()
            #expect(outcome.failures.isEmpty, "automerge converge --seed \(seed) --peers 4 --ops 50 --via sync: \(outcome.failures)")
        }
    }
}

enum SyncNetworkGen {
    static let edit = zip(Gen.int(in: 0...12), Gen.int(in: 0...5),
                          zip(Gen.int(in: 0...7), Gen.int(in: 0...15), Gen.int(in: 0...15), Gen.int(in: 0...7), Gen.int(in: 0...63)))
        .map { SyncNetworkScenario.TimedEdit(round: $0.0, peer: $0.1, edit: EditChoice(kind: $0.2.0, target: $0.2.1, position: $0.2.2, extent: $0.2.3, value: $0.2.4)) }

    static func scenario(faults: LinkFaults) -> Generator<SyncNetworkScenario, some SendableSequenceType> {
        zip(Gen.int(in: 2...6), Gen.int(in: 0...2), edit.array(of: 0...30), Gen.uint64(in: 0...UInt64(UInt32.max)))
            .map { SyncNetworkScenario(peers: $0.0, topology: .init(rawValue: $0.1)!, edits: $0.2, faults: faults, seed: $0.3) }
    }
}

@Suite("Sync: network properties", .ownThread)
struct SyncNetworkPropertyTests {
    @Test("2-6 peers in a line, star or mesh, editing while they sync, converge and stop",
          arguments: [LinkFaults.reliable, .lossy, LinkFaults(drop: 0, duplicate: 0.3, reorder: 0.6)])
    func converge(faults: LinkFaults) async {
        await propertyCheck(count: 60, input: SyncNetworkGen.scenario(faults: faults)) { scenario in
            let outcome = scenario.run()
            #expect(outcome.failures.isEmpty, "\(scenario)\n\(outcome.failures.joined(separator: "\n"))")
        }
    }
}

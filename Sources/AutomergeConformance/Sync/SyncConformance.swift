import Automerge
import Foundation

extension ConformanceRunner {
    /// Every sync scenario: between two peers of this package (built in),
    /// or between this package and `CMD sync-peer`, once with each side
    /// speaking first. A scenario needing a command the implementation
    /// lacks (`READONLY`) passes as skipped, and says so.
    public static func runSync(
        against implementation: Implementation, seed: UInt64 = 1, progress: (Int, Int, String) -> Void = { _, _, _ in }
    ) -> [CheckResult] {
        let configurations: [(label: String, sides: [Side])]
        switch implementation {
        case .builtIn: configurations = [("sync", [.ours, .ours])]
        case .external: configurations = [("sync (ours speaks first)", [.ours, .impl]), ("sync (impl speaks first)", [.impl, .ours])]
        }
        var results: [CheckResult] = []
        let total = configurations.count * SyncScenario.all.count
        for (label, sides) in configurations {
            for scenario in SyncScenario.all {
                progress(results.count + 1, total, "\(label): \(scenario.name)")
                let factory = SyncPeerFactory(implementation: implementation, sides: sides)
                let outcome = scenario.run(seed: seed) { side, bytes in try factory.make(side: side, bytes: bytes) }
                factory.stopAll()
                var detail = "\(outcome.traffic), \(outcome.rounds) rounds"
                if outcome.reconnects > 0 { detail += ", \(outcome.reconnects) reconnects" }
                if let skipped = outcome.skipped { detail = "skipped: \(skipped)" }
                results.append(CheckResult(name: scenario.name, category: label, failure: outcome.failure, detail: detail))
            }
        }
        return results
    }

    enum Side { case ours, impl }

    /// Makes the peers of one scenario run, and stops the processes afterwards.
    final class SyncPeerFactory {
        let implementation: Implementation
        let sides: [Side]
        private var processes: [ProcessSyncPeer] = []
        private var files: [String] = []

        init(implementation: Implementation, sides: [Side]) {
            self.implementation = implementation
            self.sides = sides
        }

        func make(side: Int, bytes: Data) throws -> SyncPeer {
            guard sides[side] == .impl, case .external(let command) = implementation else {
                return try LocalSyncPeer(name: "ours", bytes: bytes)
            }
            var file: String?
            if !bytes.isEmpty {
                let path = FileManager.default.temporaryDirectory
                    .appendingPathComponent("sync-scenario-\(UUID().uuidString).automerge").path
                try bytes.write(to: URL(fileURLWithPath: path))
                files.append(path)
                file = path
            }
            let peer = try ProcessSyncPeer(name: "impl", command: command, file: file)
            processes.append(peer)
            return peer
        }

        func stopAll() {
            for process in processes { process.quit() }
            processes = []
            for file in files { try? FileManager.default.removeItem(atPath: file) }
            files = []
        }
    }
}

import AutomergeFuzzing
import Foundation
import Testing
import AutomergeTestSupport

/// Replays every file of `Corpus/<target>/` through the fuzz targets' own
/// entry points (`FuzzTarget.run`), without libFuzzer: generated seeds and
/// every minimized crash ever found. A crash fails the whole run; a broken
/// invariant fails the test with the file's name.
@Suite("Fuzz corpus replay", .ownThread)
struct CorpusReplayTests {
    static let corpus = SharedFiles.packageRoot.appendingPathComponent("Corpus")

    static func files(_ target: FuzzTarget) -> [URL] {
        let dir = corpus.appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { dir.appendingPathComponent($0) }
    }

    @Test("every corpus file passes its target", arguments: FuzzTarget.allCases)
    func replay(_ target: FuzzTarget) throws {
        let files = Self.files(target)
        #expect(!files.isEmpty, "Corpus/\(target.rawValue) is empty")
        for file in files {
            let data = try Data(contentsOf: file)
            let clock = ContinuousClock()
            let start = clock.now
            do {
                try target.run(data)
            } catch {
                Issue.record("Corpus/\(target.rawValue)/\(file.lastPathComponent): \(error)")
            }
            // libFuzzer's -timeout is 5 s for a release build; a debug build gets 10 times that.
            let elapsed = clock.now - start
            #expect(elapsed < .seconds(50), "Corpus/\(target.rawValue)/\(file.lastPathComponent) took \(elapsed)")
        }
    }

    @Test("the corpus stays small (< 5 MB) and within each target's max_len")
    func corpusSize() throws {
        var total = 0
        for target in FuzzTarget.allCases {
            for file in Self.files(target) {
                let size = try Data(contentsOf: file).count
                total += size
                #expect(size <= target.maxLength, "Corpus/\(target.rawValue)/\(file.lastPathComponent) is \(size) bytes, over -max_len")
            }
        }
        #expect(total < 5_000_000, "Corpus/ holds \(total) bytes")
    }

    /// `scripts/fuzz-seeds.sh` runs this with AUTOMERGE_FUZZ_WRITE_SEEDS set to write the seeds
    /// (of the targets AUTOMERGE_FUZZ_SEED_TARGETS names, separated by spaces; every target when empty).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["AUTOMERGE_FUZZ_WRITE_SEEDS"] != nil))
    func writeSeeds() throws {
        let environment = ProcessInfo.processInfo.environment
        let root = URL(fileURLWithPath: environment["AUTOMERGE_FUZZ_WRITE_SEEDS"]!)
        let names = (environment["AUTOMERGE_FUZZ_SEED_TARGETS"] ?? "").split(separator: " ").map(String.init)
        for name in names where FuzzTarget(rawValue: name) == nil { Issue.record("no fuzz target \(name)") }
        for target in FuzzTarget.allCases where names.isEmpty || names.contains(target.rawValue) {
            let dir = root.appendingPathComponent(target.rawValue)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            for old in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] where old.hasPrefix("seed-") {
                try FileManager.default.removeItem(at: dir.appendingPathComponent(old))
            }
            for (name, data) in try FuzzSeeds.all(for: target) {
                try data.write(to: dir.appendingPathComponent(name))
            }
        }
    }
}

import Automerge
import Foundation

/// The implementation under test.
public enum Implementation: Sendable {
    /// This package, in process: dumps are compared, and so are heads and
    /// `save(compress: false)` bytes.
    case builtIn
    /// Any program that follows the dump protocol: `COMMAND dump FILE` prints
    /// the canonical dump of FILE and exits non-zero when it rejects it.
    case external(command: String)

    public var name: String {
        switch self {
        case .builtIn: return "swift-automerge (built in)"
        case .external(let command): return command
        }
    }
}

/// What one check found.
public struct CheckResult: Sendable {
    public var name: String
    public var category: String
    /// Nil when the check passed; else why it failed, readable.
    public var failure: String?
    /// For a vector a reader may reject or load (``Vector/Expectation/either``):
    /// which of the two the implementation did.
    public var allowedOutcome: AllowedOutcome?
    /// What the check measured (for sync scenarios: messages, bytes and rounds).
    public var detail: String?
    public var passed: Bool { failure == nil }

    public init(name: String, category: String, failure: String?, allowedOutcome: AllowedOutcome? = nil, detail: String? = nil) {
        self.name = name
        self.category = category
        self.failure = failure
        self.allowedOutcome = allowedOutcome
        self.detail = detail
    }
}

/// How an implementation handled a file it may reject or load.
public enum AllowedOutcome: String, Sendable {
    case rejected
    /// Loaded, as the reference reads it.
    case loaded
}

/// The outcome of a conformance run.
public struct ConformanceReport: Sendable {
    public var implementation: String
    public var results: [CheckResult]
    public var seconds: Double
    /// How each part of the run fared, in the order they ran.
    public var parts: [PartSummary]

    /// One part of a run: `dump`, `save`, `changes`, `script`, `sync`, ...
    public struct PartSummary: Sendable {
        public var part: String
        public var passed: Int
        public var failed: Int
        /// False when the implementation answered the part with "no such command".
        public var implemented: Bool

        public init(part: String, passed: Int, failed: Int, implemented: Bool) {
            self.part = part
            self.passed = passed
            self.failed = failed
            self.implemented = implemented
        }
    }

    public init(implementation: String, results: [CheckResult], seconds: Double, parts: [PartSummary] = []) {
        self.implementation = implementation
        self.results = results
        self.seconds = seconds
        self.parts = parts
    }

    public var passed: Bool { results.allSatisfy(\.passed) }

    /// (category, passed, failed) in first-seen order.
    public var categories: [(category: String, passed: Int, failed: Int)] {
        var order: [String] = []
        var counts: [String: (Int, Int)] = [:]
        for result in results {
            if counts[result.category] == nil { order.append(result.category) }
            var count = counts[result.category, default: (0, 0)]
            if result.passed { count.0 += 1 } else { count.1 += 1 }
            counts[result.category] = count
        }
        return order.map { ($0, counts[$0]!.0, counts[$0]!.1) }
    }

    /// The table, then the first failure of each category with its diff.
    public var text: String {
        let rows = categories
        let width = max(24, (rows.map(\.category.count).max() ?? 0) + 2)
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
        func lpad(_ s: String, _ n: Int) -> String { String(repeating: " ", count: max(0, n - s.count)) + s }
        var out = "Conformance of \(implementation)\n\n"
        if !parts.isEmpty {
            out += "parts: " + parts.map { part in
                guard part.implemented else { return "\(part.part) not implemented" }
                return "\(part.part) \(part.passed)/\(part.passed + part.failed)\(part.failed == 0 ? " passed" : " passed, \(part.failed) FAILED")"
            }.joined(separator: "; ") + "\n\n"
        }
        out += pad("category", width) + lpad("passed", 8) + lpad("failed", 8) + "\n"
        out += String(repeating: "-", count: width + 16) + "\n"
        for row in rows { out += pad(row.category, width) + lpad("\(row.passed)", 8) + lpad("\(row.failed)", 8) + "\n" }
        out += String(repeating: "-", count: width + 16) + "\n"
        let passed = results.filter(\.passed).count
        out += pad("total", width) + lpad("\(passed)", 8) + lpad("\(results.count - passed)", 8) + "\n"
        let either = results.filter { $0.allowedOutcome != nil }
        if !either.isEmpty {
            out += "\nAllowed either way (the spec forbids these files, Rust 0.11 loads them; see Vectors/README.md):\n"
            for result in either { out += "  \(result.name): \(result.allowedOutcome!.rawValue)\n" }
        }
        let measured = results.filter { $0.detail != nil }
        if !measured.isEmpty {
            out += "\nSync scenarios (messages and bytes on the wire, first side + second side):\n"
            for result in measured { out += "  \(result.category): \(result.name): \(result.detail!)\n" }
        }
        var seen: Set<String> = []
        for result in results where !result.passed && seen.insert(result.category).inserted {
            out += "\nFirst failure in \(result.category): \(result.name)\n"
            out += result.failure!.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n") + "\n"
        }
        out += String(format: "\nFinished in %.1f s.\nconformance: %d passed, %d failed\n", seconds, passed, results.count - passed)
        return out
    }

    public var json: JSONValue {
        .object([
            "implementation": .string(implementation),
            "passed": .bool(passed),
            "seconds": .number(String(format: "%.3f", seconds)),
            "parts": .array(parts.map {
                .object(["part": .string($0.part), "implemented": .bool($0.implemented),
                         "passed": .number("\($0.passed)"), "failed": .number("\($0.failed)")])
            }),
            "categories": .array(categories.map {
                .object(["category": .string($0.category), "passed": .number("\($0.passed)"), "failed": .number("\($0.failed)")])
            }),
            "failures": .array(results.filter { !$0.passed }.map {
                .object(["name": .string($0.name), "category": .string($0.category), "reason": .string($0.failure!)])
            }),
            "measured": .array(results.compactMap { result in
                result.detail.map { .object(["name": .string(result.name), "category": .string(result.category), "detail": .string($0)]) }
            }),
            "allowed": .array(results.compactMap { result in
                result.allowedOutcome.map { .object(["name": .string(result.name), "outcome": .string($0.rawValue)]) }
            }),
        ])
    }
}

/// Runs vectors and convergence scenarios.
public enum ConformanceRunner {
    /// Checks every vector of the manifest in `directory`.
    public static func runVectors(
        in directory: URL, against implementation: Implementation, progress: (Int, Int, String) -> Void = { _, _, _ in }
    ) throws -> [CheckResult] {
        let manifest = try VectorManifest(contentsOf: directory)
        var results: [CheckResult] = []
        for (index, vector) in manifest.vectors.enumerated() {
            progress(index + 1, manifest.vectors.count, vector.name)
            var result = CheckResult(name: vector.name, category: vector.category, failure: nil)
            do {
                let (failure, accepted) = try evaluate(vector, in: directory, against: implementation)
                result.failure = failure
                if vector.expect == .either { result.allowedOutcome = accepted ? .loaded : .rejected }
            } catch {
                result.failure = "could not run: \(error)"
            }
            results.append(result)
        }
        return results
    }

    /// Nil if the implementation handles the vector as expected, else why not.
    public static func check(_ vector: Vector, in directory: URL, against implementation: Implementation) throws -> String? {
        try evaluate(vector, in: directory, against: implementation).failure
    }

    /// Why the implementation fails the vector (nil if it passes), and whether it accepted the file.
    static func evaluate(_ vector: Vector, in directory: URL, against implementation: Implementation) throws
        -> (failure: String?, accepted: Bool) {
        let url = directory.appendingPathComponent(vector.file)
        let bytes = try FileAccess.read(url.path)
        let outcome = try run(implementation, file: url, bytes: bytes)
        switch vector.expect {
        case .invalid:
            if outcome.accepted {
                return ("expected rejection (\(vector.error ?? "invalid")), but the file was accepted: \(outcome.output.prefix(200))", true)
            }
            return (nil, false)
        case .either:
            guard outcome.accepted else { return (nil, false) }
            return (try compareDocument(vector, outcome, in: directory, against: implementation), true)
        case .valid:
            guard outcome.accepted else {
                return ("expected a document, but the file was rejected: \(outcome.output.prefix(300))", false)
            }
            return (try compareDocument(vector, outcome, in: directory, against: implementation), true)
        }
    }

    /// Nil if a loaded file reads as the vector's recorded document, else how it differs.
    static func compareDocument(_ vector: Vector, _ outcome: Outcome, in directory: URL, against implementation: Implementation) throws -> String? {
        guard let actual = outcome.dump else { return "the output is not JSON: \(outcome.output.prefix(300))" }
        let expected = try JSONParser.parse([UInt8](try FileAccess.read(directory.appendingPathComponent(vector.dump!).path)))
        var problems: [String] = []
        if !JSONDiff.equal(expected, actual) {
            problems.append("dump differs:\n" + JSONDiff.describe(expected: expected, actual: actual))
        }
        if case .builtIn = implementation, let doc = outcome.document {
            let heads = doc.heads().sorted().map(\.description)
            if heads != vector.heads { problems.append("heads differ: expected \(vector.heads), got \(heads)") }
            if let savePath = vector.save {
                let expectedSave = try FileAccess.read(directory.appendingPathComponent(savePath).path)
                let save = doc.save(compress: false)
                if save != expectedSave {
                    let at = zip(save, expectedSave).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                        ?? min(save.count, expectedSave.count)
                    problems.append("save(compress: false) differs from \(savePath): \(save.count) vs \(expectedSave.count) bytes, first difference at byte \(at)")
                }
            }
        }
        return problems.isEmpty ? nil : problems.joined(separator: "\n")
    }

    struct Outcome {
        var accepted: Bool
        var dump: JSONValue?
        var output: String
        var document: Document?
    }

    static func run(_ implementation: Implementation, file: URL, bytes: Data) throws -> Outcome {
        switch implementation {
        case .builtIn:
            do {
                let doc = try Document(bytes)
                let dump = CanonicalDump.dump(doc)
                return Outcome(accepted: true, dump: dump, output: dump.serialized, document: doc)
            } catch {
                return Outcome(accepted: false, dump: nil, output: String(describing: error), document: nil)
            }
        case .external(let command):
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "\(command) dump \"$0\"", file.path]
            let stdout = Pipe()
            process.standardOutput = stdout
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let data = stdout.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let text = String(decoding: data, as: UTF8.self)
            let accepted = process.terminationReason == .exit && process.terminationStatus == 0
            return Outcome(accepted: accepted, dump: try? JSONParser.parse([UInt8](data)), output: text, document: nil)
        }
    }

    /// Checks every sync vector of the manifest in `directory` (its `sync`
    /// array) against this implementation: valid messages, states and
    /// Bloom filters must decode to the recorded JSON and re-encode to the
    /// recorded bytes, filters must answer `contains` as recorded, and
    /// invalid ones must be rejected.
    public static func runSyncVectors(
        in directory: URL, progress: (Int, Int, String) -> Void = { _, _, _ in }
    ) throws -> [CheckResult] {
        let manifest = try VectorManifest(contentsOf: directory)
        var results: [CheckResult] = []
        for (index, vector) in manifest.sync.enumerated() {
            progress(index + 1, manifest.sync.count, vector.name)
            var result = CheckResult(name: vector.name, category: vector.category, failure: nil)
            do {
                result.failure = try SyncVectorCheck.check(vector, in: directory)
            } catch {
                result.failure = "could not run: \(error)"
            }
            results.append(result)
        }
        return results
    }

    /// Random convergence scenarios of the built-in implementation:
    /// `count` per delivery mode, 2 to 5 peers, 20 to 60 steps.
    public static func runConvergence(
        seed: UInt64, count: Int, progress: (Int, Int, String) -> Void = { _, _, _ in }
    ) -> [CheckResult] {
        var rng = SeededGenerator(seed: seed)
        var results: [CheckResult] = []
        let total = count * Delivery.allCases.count
        for _ in 0..<count {
            for delivery in Delivery.allCases {
                let scenarioSeed = rng.next()
                let peers = Int.random(in: 2...5, using: &rng)
                let ops = Int.random(in: 20...60, using: &rng)
                let name = "converge --seed \(scenarioSeed) --peers \(peers) --ops \(ops) --via \(delivery)"
                progress(results.count + 1, total, name)
                let outcome = ConvergenceScenario.random(seed: scenarioSeed, peers: peers, ops: ops, delivery: delivery).run()
                let failure = outcome.failures.isEmpty ? nil
                    : "reproduce with: automerge \(name)\n" + outcome.failures.prefix(5).joined(separator: "\n")
                results.append(CheckResult(name: name, category: "convergence (\(delivery))", failure: failure))
            }
        }
        return results
    }
}

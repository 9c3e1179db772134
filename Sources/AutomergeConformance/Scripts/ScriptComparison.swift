@_spi(Conformance) import Automerge
import Foundation

/// Something that runs edit scripts and hands back the result's
/// uncompressed save: this package in process, or another implementation
/// through `CMD script SCRIPT.json OUT`.
public protocol ScriptImplementation: Sendable {
    /// A name for reports.
    var name: String { get }
    /// Runs `script`; the uncompressed save of its result peer.
    func save(running script: EditScript) throws -> Data
}

/// This package, in process.
public struct BuiltInScriptImplementation: ScriptImplementation {
    public init() {}
    public var name: String { "swift-automerge (built in)" }
    public func save(running script: EditScript) throws -> Data { try EditScriptRunner.run(script).save(compress: false) }
}

/// How two runs of a script differ, in words.
public enum ScriptComparison {
    /// Nil when `actual` is the expected document byte for byte; else the
    /// first difference: heads, the first change whose hash differs (with
    /// the first op that differs), or the first differing byte.
    public static func difference(expectedSave: Data, actualSave: Data) -> String? {
        guard expectedSave != actualSave else { return nil }
        let expected: Document
        do { expected = try Document(expectedSave) } catch { return "the expected save does not load: \(error)" }
        let actual: Document
        do { actual = try Document(actualSave) } catch { return "the save does not load: \(error)" }
        var lines: [String] = []
        let (expectedHistory, actualHistory) = (expected.getHistory(), actual.getHistory())
        if expectedHistory != actualHistory {
            let expectedHeads = expected.heads().sorted().map(\.description), actualHeads = actual.heads().sorted().map(\.description)
            if expectedHeads != actualHeads { lines.append("heads: expected \(expectedHeads), got \(actualHeads)") }
            let index = firstDifference(expectedHistory, actualHistory) ?? 0
            lines.append("changes: \(expectedHistory.count) expected, \(actualHistory.count) written; they part at change \(index + 1)")
            lines.append(contentsOf: describeChange(at: index, expected: (expected, expectedHistory), actual: (actual, actualHistory)))
        } else {
            let at = firstDifference(expectedSave, actualSave) ?? 0
            lines.append("same changes, but the saves differ: \(expectedSave.count) vs \(actualSave.count) bytes, first difference at byte \(at)")
        }
        let (expectedDump, actualDump) = (CanonicalDump.dump(expected), CanonicalDump.dump(actual))
        if !JSONDiff.equal(expectedDump, actualDump) {
            lines.append("dump differs:\n" + JSONDiff.describe(expected: expectedDump, actual: actualDump))
        }
        return lines.joined(separator: "\n")
    }

    /// The expected and the written change at `index` of each history, side by side from their first difference.
    static func describeChange(at index: Int, expected: (Document, [ChangeHash]), actual: (Document, [ChangeHash])) -> [String] {
        func description(_ side: (Document, [ChangeHash])) -> ChangeDescription? {
            guard index < side.1.count, let change = side.0.change(hash: side.1[index]) else { return nil }
            return try? ChangeDescription(changeBytes: change.bytes)
        }
        return describePair(expected: description(expected), written: description(actual))
    }

    /// Two changes that should have been one, from their first difference.
    static func describePair(expected want: ChangeDescription?, written got: ChangeDescription?) -> [String] {
        var lines: [String] = []
        lines.append("  expected change \(want.map { "\($0.hash): \($0.header)" } ?? "none")")
        lines.append("  written change  \(got.map { "\($0.hash): \($0.header)" } ?? "none")")
        guard let want, let got else { return lines }
        if let op = firstDifference(want.ops, got.ops) {
            lines.append("  first differing op (#\(op + 1); \(want.ops.count) expected, \(got.ops.count) written):")
            lines.append("    expected: \(op < want.ops.count ? want.ops[op] : "none")")
            lines.append("    written:  \(op < got.ops.count ? got.ops[op] : "none")")
        } else {
            lines.append("  same ops; the headers differ")
        }
        return lines
    }

    /// The offset of the first element where `a` and `b` differ, or of the
    /// end of the shorter one; nil when they are equal.
    static func firstDifference<C: Collection>(_ a: C, _ b: C) -> Int? where C.Element: Equatable {
        if let offset = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset { return offset }
        return a.count == b.count ? nil : min(a.count, b.count)
    }

    /// The first step after which `a` and `b` leave different documents
    /// (1-based; nil when the whole script agrees), by bisecting prefixes:
    /// a difference, once made, stays, because a change's hash covers its
    /// history. A prefix that one side fails to run counts as a difference.
    /// Only the result peer is compared, so a difference made on another
    /// peer shows from the step that merges it, and a `load` that puts an
    /// older document back can hide one (bisection then still lands on a
    /// step after which the two part).
    public static func firstDivergentStep(_ script: EditScript, _ a: any ScriptImplementation, _ b: any ScriptImplementation) -> Int? {
        func agree(_ count: Int) -> Bool {
            let prefix = script.prefix(count)
            let (left, right) = (Result { try a.save(running: prefix) }, Result { try b.save(running: prefix) })
            switch (left, right) {
            case (.success(let x), .success(let y)): return x == y
            case (.failure, .failure): return true
            default: return false
            }
        }
        guard !agree(script.steps.count) else { return nil }
        var (low, high) = (0, script.steps.count)  // agree(low), !agree(high)
        while high - low > 1 {
            let middle = (low + high) / 2
            if agree(middle) { low = middle } else { high = middle }
        }
        return high
    }
}

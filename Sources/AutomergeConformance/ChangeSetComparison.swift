@_spi(Conformance) import Automerge
import Foundation

/// Compares the change chunks an implementation wrote for a document with
/// the document's changes: the same set of hashes (so the same bytes), in
/// any order that loads.
enum ChangeSetComparison {
    static func difference(expected: Document, written: Data) -> String? {
        let actual: Document
        do { actual = try Document(written) } catch { return "the change chunks do not load: \(error)" }
        let (want, got) = (expected.getHistory(), actual.getHistory())
        let (wantSet, gotSet) = (Set(want), Set(got))
        let (missing, extra) = (want.filter { !gotSet.contains($0) }, got.filter { !wantSet.contains($0) })
        guard !missing.isEmpty || !extra.isEmpty else { return nil }
        var lines = ["\(want.count) changes expected, \(got.count) written: \(missing.count) missing, \(extra.count) not expected"]
        func describe(_ hash: ChangeHash?, in document: Document) -> ChangeDescription? {
            hash.flatMap { document.change(hash: $0) }.flatMap { try? ChangeDescription(changeBytes: $0.bytes) }
        }
        let wanted = describe(missing.first, in: expected)
        // The written change that should have been it: the same actor's same sequence number.
        let seqAndActor = wanted.map { String($0.header.prefix { $0 != "," }) }
        let counterpart = extra.lazy.compactMap { describe($0, in: actual) }.first { $0.header.hasPrefix(seqAndActor ?? "\u{0}") }
        lines.append(contentsOf: ScriptComparison.describePair(expected: wanted, written: counterpart ?? describe(extra.first, in: actual)))
        return lines.joined(separator: "\n")
    }
}

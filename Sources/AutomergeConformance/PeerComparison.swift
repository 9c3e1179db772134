import Automerge
import Foundation

/// Whether documents that have the same changes are the same: the checks
/// every convergence scenario and property test ends with.
public enum PeerComparison {
    /// Every way in which `documents` differ from the first one; empty when
    /// they agree on the canonical dump, heads, every `getAll` conflict set,
    /// and their uncompressed saves.
    ///
    /// A saved document lists its changes in the order they reached the peer
    /// (as Rust's does), so two peers' saves are byte-identical only when
    /// their histories are in the same order. What must agree regardless:
    /// the actor table, heads and every op column of the document chunk, and
    /// the save of the document rebuilt with its changes in a canonical order.
    public static func differences(_ documents: [Document], limit: Int = 8) -> [String] {
        guard let first = documents.first else { return [] }
        var result: [String] = []
        let reference = Facts(first)
        for (index, doc) in documents.enumerated().dropFirst() {
            result += reference.differences(from: Facts(doc)).map { "peer \(index) vs peer 0: \($0)" }
            if result.count >= limit { break }
        }
        for (index, doc) in documents.enumerated() {
            result += roundTripDifferences(doc).map { "peer \(index): \($0)" }
        }
        return Array(result.prefix(limit))
    }

    /// The differences between `reference` and each of `others`, without
    /// the save round trips and canonical rebuilds (for comparing many
    /// copies of one peer that received the same changes in different orders).
    public static func quickDifferences(_ reference: Document, _ others: [Document], limit: Int = 8) -> [String] {
        let facts = Facts(reference, thorough: false)
        var result: [String] = []
        for (index, doc) in others.enumerated() where result.count < limit {
            result += facts.differences(from: Facts(doc, thorough: false)).map { "copy \(index + 1): \($0)" }
        }
        return Array(result.prefix(limit))
    }

    /// What a save and load of `doc` changes (nothing, for a correct implementation).
    public static func roundTripDifferences(_ doc: Document) -> [String] {
        let save = doc.save(compress: false)
        do {
            let loaded = try Document(save)
            var result: [String] = []
            let before = CanonicalDump.dump(doc), after = CanonicalDump.dump(loaded)
            if before != after { result.append("reloaded save dumps differently: " + JSONDiff.describe(expected: before, actual: after)) }
            if loaded.save(compress: false) != save { result.append("reloaded save re-saves to different bytes") }
            let compressed = try Document(doc.save())
            if CanonicalDump.dump(compressed) != before { result.append("compressed save reloads with a different dump") }
            return result
        } catch {
            return ["own save does not load: \(error)"]
        }
    }

    /// A document's changes in a canonical topological order (dependencies
    /// first, ties by hash), limited to the ancestors of `heads` if given.
    public static func canonicalChanges(_ doc: Document, upTo heads: Set<ChangeHash>? = nil) -> [Change] {
        var changes: [ChangeHash: Change] = [:]
        if let heads {
            var stack = Array(heads)
            while let hash = stack.popLast() {
                guard changes[hash] == nil, let change = doc.change(hash: hash) else { continue }
                changes[hash] = change
                stack += change.deps
            }
        } else {
            for hash in doc.getHistory() { changes[hash] = doc.change(hash: hash) }
        }
        var waiting: [ChangeHash: Int] = [:]
        var dependents: [ChangeHash: [ChangeHash]] = [:]
        for (hash, change) in changes {
            waiting[hash] = change.deps.count
            for dep in change.deps { dependents[dep, default: []].append(hash) }
        }
        var ready = changes.keys.filter { waiting[$0] == 0 }.sorted()
        var order: [Change] = []
        while !ready.isEmpty {
            let hash = ready.removeFirst()
            order.append(changes[hash]!)
            var newlyReady: [ChangeHash] = []
            for dependent in dependents[hash] ?? [] {
                waiting[dependent]! -= 1
                if waiting[dependent] == 0 { newlyReady.append(dependent) }
            }
            ready = (ready + newlyReady).sorted()
        }
        return order
    }

    /// A new document with `changes` applied in the given order.
    public static func rebuild(_ changes: [Change]) throws -> Document {
        let doc = Document()
        try doc.applyEncodedChanges(encoded: Data(changes.flatMap(\.bytes)))
        return doc
    }

    /// Values as comparable text: floats by bit pattern (NaN equals itself),
    /// strings with their scalars escaped past ASCII (so that texts compare
    /// by scalars), objects by id.
    public static func describe(_ value: Value) -> String {
        switch value {
        case .Object(let id, let type): return "\(type)(\(id))"
        case .Scalar(.String(let text)): return "String(\"\(ExactString(text).escaped)\")"
        case .Scalar(.F64(let v)): return "F64(\(String(v.bitPattern, radix: 16)))"
        case .Scalar(.Timestamp(let date)): return "Timestamp(\(date.timeIntervalSince1970))"
        case .Scalar(.Bytes(let data)): return "Bytes(\(Bytes.hex([UInt8](data))))"
        case .Scalar(let scalar): return "\(scalar)"
        }
    }

    /// Every conflict set: for each object, key or index, the sorted
    /// descriptions of `getAll`. Keys are escaped past ASCII, so that two
    /// keys that differ in their scalars stay two entries.
    public static func conflicts(_ doc: Document) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for (obj, type) in RandomEdits.objects(doc) {
            switch type {
            case .Map:
                for key in doc.keys(obj: obj) {
                    result["\(obj)[\"\(ExactString(key).escaped)\"]"] = ((try? doc.getAll(obj: obj, key: key)) ?? []).map(describe).sorted()
                }
            case .List, .Text:
                for index in 0..<doc.length(obj: obj) where type == .List {
                    result["\(obj)[\(index)]"] = ((try? doc.getAll(obj: obj, index: index)) ?? []).map(describe).sorted()
                }
            }
        }
        return result
    }

    /// The facts compared between peers.
    struct Facts {
        let dump: JSONValue
        let heads: [ChangeHash]
        let history: [ChangeHash]
        let conflicts: [String: [String]]
        let save: Data
        /// The save of the document rebuilt in canonical change order (nil
        /// when not computed: peers with the same changes agree on it
        /// whenever they agree on the rest, so a quick comparison skips it).
        let canonicalSave: Data?

        init(_ doc: Document, thorough: Bool = true) {
            dump = CanonicalDump.dump(doc)
            heads = doc.heads().sorted()
            history = doc.getHistory()
            conflicts = PeerComparison.conflicts(doc)
            save = doc.save(compress: false)
            canonicalSave = thorough
                ? (try? PeerComparison.rebuild(PeerComparison.canonicalChanges(doc)))?.save(compress: false) ?? Data()
                : nil
        }

        func differences(from other: Facts) -> [String] {
            var result: [String] = []
            if dump != other.dump { result.append("dumps differ: " + JSONDiff.describe(expected: dump, actual: other.dump)) }
            if heads != other.heads { result.append("heads differ: \(heads) vs \(other.heads)") }
            if conflicts != other.conflicts {
                let keys = Set(conflicts.keys).union(other.conflicts.keys).sorted()
                if let key = keys.first(where: { conflicts[$0] != other.conflicts[$0] }) {
                    result.append("getAll differs at \(key): \(conflicts[key] ?? []) vs \(other.conflicts[key] ?? [])")
                }
            }
            if Set(history) != Set(other.history) { result.append("the peers have different changes") }
            if history == other.history && save != other.save {
                result.append("same history order but different save(compress: false) bytes")
            }
            if let mine = SaveSections(save), let theirs = SaveSections(other.save) {
                if mine.actors != theirs.actors { result.append("saves list different actors") }
                if mine.heads != theirs.heads { result.append("saves store different heads") }
                if let column = mine.firstDifferentOpColumn(theirs) {
                    result.append("save(compress: false) op column \(column) differs")
                }
                if mine.trailingChunks != theirs.trailingChunks { result.append("saves retain different orphan changes") }
            } else {
                result.append("a save does not parse as a document chunk")
            }
            if let canonicalSave, let theirs = other.canonicalSave, canonicalSave.isEmpty || canonicalSave != theirs {
                result.append("saves of the canonically rebuilt documents differ")
            }
            return result
        }
    }

    /// The order-independent parts of an uncompressed save.
    struct SaveSections {
        let actors: [[UInt8]]
        let heads: [[UInt8]]
        let opColumns: [RawColumn]
        let trailingChunks: Set<[UInt8]>

        init?(_ save: Data) {
            guard let chunks = RawChunk.split([UInt8](save)), let first = chunks.first, first.type == 0,
                  let (layout, _) = DocumentLayout.parse(first.contents) else { return nil }
            actors = layout.actors
            heads = layout.heads
            opColumns = layout.opColumns
            trailingChunks = Set(chunks.dropFirst().map(\.bytes))
        }

        func firstDifferentOpColumn(_ other: SaveSections) -> UInt64? {
            if opColumns == other.opColumns { return nil }
            for (a, b) in zip(opColumns, other.opColumns) where a != b { return a.spec }
            return opColumns.count > other.opColumns.count ? opColumns[other.opColumns.count].spec : other.opColumns[opColumns.count].spec
        }
    }
}

import Foundation
import Testing
@_spi(Conformance) @testable import Automerge

// Helpers shared by the core specification tests: deterministic peers,
// merging between peers, readable renderings of generated ops, and document
// snapshots for "a failed call changes nothing" checks.

// MARK: Peers

/// A one-byte actor id. Op ids with equal counters order by actor bytes, so
/// `actorId(0x02)` beats `actorId(0x01)` in every tie.
func actorId(_ byte: UInt8) -> ActorId { ActorId(data: Data([byte]))! }

extension Document {
    /// A new empty document writing as the one-byte actor `byte`.
    static func peer(_ byte: UInt8, textEncoding: TextEncoding = .unicodeScalar) -> Document {
        let doc = Document(textEncoding: textEncoding)
        doc.actor = actorId(byte)
        return doc
    }

    /// Commits pending edits as `commitWith` does, at time 0 unless given
    /// one, so that the same edits give the same hashes on every run.
    func commitChange(message: String? = nil, timestamp: Date? = nil) {
        commitWith(message: message, timestamp: timestamp ?? Date(timeIntervalSince1970: 0))
    }

    /// Commits pending edits, then forks a copy that writes as actor `byte`.
    func forkPeer(_ byte: UInt8) -> Document {
        commitChange()
        let copy = fork()
        copy.actor = actorId(byte)
        return copy
    }

    /// Commits both peers' pending edits, then merges `other` into this document.
    func merge(peer other: Document) throws {
        commitChange()
        other.commitChange()
        try merge(other: other)
    }

    /// Commits pending edits and returns the heads.
    func committedHeads() -> Set<ChangeHash> {
        commitChange()
        return heads()
    }
}

/// Merges every peer into every other, so all end with the same changes.
func mergeAll(_ peers: [Document]) throws {
    for target in peers {
        for source in peers where source !== target { try target.merge(peer: source) }
    }
    for target in peers {
        for source in peers where source !== target { try target.merge(peer: source) }
    }
}

// MARK: Reading the generated ops

extension Document {
    /// The ops of the open transaction, rendered by ``render(_:)``.
    var pendingOps: [String] {
        locked { state in
            var pending = ChangeOpList()
            if let transaction = state.transaction { transaction.readBack(from: state.ops, into: &pending) }
            return pending.ops.map { state.render($0) }
        }
    }

    /// The number of ops in the open transaction.
    var pendingOpCount: Int {
        locked { $0.transaction?.ops.count ?? 0 }
    }

    /// `counter@actorhex` of an object id, as ops render it.
    func opIdString(_ obj: ObjId) -> String { obj.description }
}

extension DocumentState {
    func idString(_ id: OpId) -> String {
        id.isRoot ? "_root" : "\(id.counter)@\(ops.actors[id.actor].hexString)"
    }

    /// One op as `<id> <action> <obj>.<key> [insert] pred [..] [value v] [name n] [expand]`;
    /// the key is `"string"` for a map key, the element id (or `_head`) for a sequence.
    func render(_ op: ChangeOp) -> String {
        var parts = [idString(op.id), "\(op.action)"]
        let key: String
        switch op.key {
        case .map(let mapKey): key = "\"\(mapKey.string)\""
        case .element(let element): key = element.isRoot ? "_head" : idString(element)
        }
        parts.append("\(idString(op.object)).\(key)")
        if op.insert { parts.append("insert") }
        parts.append("pred [\(op.predecessors.map(idString).joined(separator: ","))]")
        if op.value != .null { parts.append("value \(renderValue(op.value))") }
        if let name = op.markName { parts.append("name \(name)") }
        if op.expand { parts.append("expand") }
        return parts.joined(separator: " ")
    }
}

/// A value as ops render it: `int(1)`, `bool(true)`, strings quoted with
/// every non-ASCII scalar written `\u{XXXX}`.
func renderValue(_ value: Primitive) -> String {
    guard case .string(let string) = value else { return "\(value)" }
    let body = string.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16, uppercase: true))}" }.joined()
    return "string(\"\(body)\")"
}

// MARK: Snapshots

/// Everything a user can observe about a document, for "unchanged" checks.
struct Snapshot: Equatable {
    var heads: Set<ChangeHash>
    var pendingOps: [String]
    var dump: String

    init(_ doc: Document) {
        pendingOps = doc.pendingOps
        heads = doc.locked { $0.history.heads }  // without committing
        dump = describe(doc, .ROOT)
    }
}

/// A deterministic rendering of an object and everything under it
/// (conflicts included, strings by their Unicode scalars), now or, through
/// the `...At` reads, as it was at `heads`.
func describe(_ doc: Document, _ obj: ObjId, at heads: Set<ChangeHash>? = nil) -> String {
    func value(_ v: Value) -> String {
        switch v {
        case .Object(let id, let type): return "\(type)(\(describe(doc, id, at: heads)))"
        case .Scalar(let scalar):
            if case .String(let s) = scalar { return "\"" + s.unicodeScalars.map { String($0) }.joined() + "\"" }
            return "\(scalar)"
        }
    }
    func render(_ marks: [Mark]) -> [String] { marks.map { "\($0.name)=\($0.value)@\($0.start)..<\($0.end)" } }
    let length = heads.map { doc.lengthAt(obj: obj, heads: $0) } ?? doc.length(obj: obj)
    switch doc.objectType(obj: obj) {
    case .Map:
        let keys = heads.map { doc.keysAt(obj: obj, heads: $0) } ?? doc.keys(obj: obj)
        let entries = heads.map { try! doc.mapEntriesAt(obj: obj, heads: $0) } ?? (try! doc.mapEntries(obj: obj))
        #expect(entries.map(\.0) == keys && UInt64(keys.count) == length, "keys, mapEntries and length disagree")
        return "{" + entries.map { key, winner in
            let all = heads.map { try! doc.getAllAt(obj: obj, key: key, heads: $0) } ?? (try! doc.getAll(obj: obj, key: key))
            let got = heads.map { try! doc.getAt(obj: obj, key: key, heads: $0) } ?? (try! doc.get(obj: obj, key: key))
            #expect(got == winner, "get and mapEntries disagree")
            return "\(key): \(value(winner)) all \(all.map(value).sorted())"
        }.joined(separator: ", ") + "}"
    case .List:
        let values = heads.map { try! doc.valuesAt(obj: obj, heads: $0) } ?? (try! doc.values(obj: obj))
        #expect(UInt64(values.count) == length, "values and length disagree")
        return "[" + values.enumerated().map { index, element in
            let all = heads.map { try! doc.getAllAt(obj: obj, index: UInt64(index), heads: $0) } ?? (try! doc.getAll(obj: obj, index: UInt64(index)))
            return all.count > 1 ? "\(value(element)) all \(all.map(value).sorted())" : value(element)
        }.joined(separator: ", ") + "]"
    case .Text:
        let text = heads.map { try! doc.textAt(obj: obj, heads: $0) } ?? (try! doc.text(obj: obj))
        let marks = heads.map { try! doc.marksAt(obj: obj, heads: $0) } ?? (try! doc.marks(obj: obj))
        return "\"\(Array(text.unicodeScalars))\" length \(length) marks \(render(marks))"
    }
}

// MARK: Text helpers

/// The Unicode scalars of a string: Swift's `String ==` treats canonically
/// equivalent strings as equal, Automerge does not.
func scalars(_ s: String) -> [Unicode.Scalar] { Array(s.unicodeScalars) }

/// A document with a text object at `"text"` holding `content`, committed.
func textDocument(_ content: String, actor byte: UInt8 = 0x01, encoding: TextEncoding = .unicodeScalar) throws -> (Document, ObjId) {
    let doc = Document.peer(byte, textEncoding: encoding)
    let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
    if !content.isEmpty { try doc.spliceText(obj: text, start: 0, delete: 0, value: content) }
    doc.commitChange()
    return (doc, text)
}

/// The ops of a transaction read back as ``ChangeOp`` values.
struct ChangeOpList: TransactionOpSink {
    var ops: [ChangeOp] = []

    mutating func take(id: OpId, object: OpId, key: OpKey, insert: Bool, action: OpAction, value: borrowing Primitive,
                       expand: Bool, markName: String?, predecessors: borrowing [OpId]) {
        ops.append(ChangeOp(id: id, object: object, key: key, insert: insert, action: action, value: copy value,
                            predecessors: copy predecessors, expand: expand, markName: markName))
    }
}

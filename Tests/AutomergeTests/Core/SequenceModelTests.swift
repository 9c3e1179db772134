import Foundation
import PropertyBased
import Testing
@testable import Automerge

/// Thousands of random splices, puts, marks, merges and reloads between two
/// or three peers on one list or text, growing sequences several leaves and
/// three tree levels deep. After every step the edited peer reads like a
/// plain array or string model; a merged peer reads like a second document
/// holding the same changes, and becomes the model. Every document's
/// invariants are checked after every mutation: by the suite's trait after
/// each call (debug builds), and explicitly (any build).
@Suite("Sequence model", .checkingInvariants)
struct SequenceModelTests {
    /// One step of a script: every field is a small number that shrinks
    /// towards 0, and every combination is valid.
    struct Step: Sendable, CustomStringConvertible {
        let peer: Int
        /// 0-6 insert, 7-9 delete, 10 put, 11-12 mark (text) or replace (list), 13-14 merge, 15 save and load.
        let kind: Int
        let position: Int
        let count: Int
        let value: Int

        var description: String { "(\(peer), \(kind), \(position), \(count), \(value))" }
    }

    static func script(steps: ClosedRange<Int>) -> Generator<(peers: Int, steps: [Step]), some SendableSequenceType> {
        let step = zip(Gen.int(in: 0...2), Gen.int(in: 0...15), Gen.int(in: 0...4095), Gen.int(in: 0...95), Gen.int(in: 0...63))
            .map { Step(peer: $0.0, kind: $0.1, position: $0.2, count: $0.3, value: $0.4) }
        return zip(Gen.int(in: 2...3), step.array(of: steps)).map { (peers: $0.0, steps: $0.1) }
    }

    /// The peers, writing as actors 1, 2 and 3, each holding the object
    /// "seq" of kind `type` (made by the first and forked to the others).
    static func peers(_ count: Int, type: ObjType) throws -> (docs: [Document], obj: ObjId) {
        let first = Document(textEncoding: .utf8)
        first.actor = actorId(1)
        let obj = try first.putObject(obj: .ROOT, key: "seq", ty: type)
        return ([first] + (2...count).map { first.forkPeer(UInt8($0)) }, obj)
    }

    /// Tree levels of the sequence `obj` of `doc` (1 for a lone leaf).
    static func treeHeight(_ doc: Document, _ obj: ObjId) -> Int {
        doc.locked { state in
            guard let (_, index) = state.ops.resolve(obj) else { return 0 }
            let tree = state.ops.objects[index].sequence
            var levels = 1, node = tree.root
            while !tree.nodes[Int(node)].isLeaf { node = tree.nodes[Int(node)].children[0]; levels += 1 }
            return levels
        }
    }

    /// Merges peer `source` into peer `target`, checks the result against a
    /// second document holding the same changes, and returns it as read by `read`.
    static func merge<Model: Equatable>(_ docs: [Document], into target: Int, from source: Int,
                                        read: (Document) throws -> Model) throws -> Model? {
        try docs[target].merge(other: docs[source])
        let reference = docs[source].fork()
        try reference.merge(other: docs[target])
        try docs[target].checkInvariants()
        try reference.checkInvariants()
        let (merged, expected) = (try read(docs[target]), try read(reference))
        #expect(merged == expected, "peer \(target) after merging peer \(source)")
        return merged == expected ? merged : nil
    }

    /// `doc` saved and loaded again, writing as the same actor.
    static func reloaded(_ doc: Document) throws -> Document {
        let loaded = try Document(doc.save(), textEncoding: .utf8)
        loaded.actor = doc.actor
        try loaded.checkInvariants()
        return loaded
    }

    // MARK: Lists

    @Test("list edits and merges between peers match an array model")
    func list() async throws {
        var deepest = 0
        await propertyCheck(count: 3, input: Self.script(steps: 100...100)) { script in
            var (docs, obj) = try Self.peers(script.peers, type: .List)
            var models = [[Int64]](repeating: [], count: script.peers)
            func read(_ doc: Document) throws -> [Int64] {
                try doc.values(obj: obj).map { value -> Int64 in
                    if case .Scalar(.Int(let n)) = value { return n }
                    return -1
                }
            }
            for (index, step) in script.steps.enumerated() {
                let peer = step.peer % script.peers, doc = docs[peer]
                let length = models[peer].count
                let values = (0...step.count).map { Int64(step.value * 100 + $0) }
                switch step.kind {
                case 0...6:
                    let at = step.position % (length + 1)
                    try doc.splice(obj: obj, start: UInt64(at), delete: 0, values: values.map { .Int($0) })
                    models[peer].insert(contentsOf: values, at: at)
                case 7...12 where length > 0:
                    let at = step.position % length
                    let deleted = min(step.count + 1, length - at)
                    if step.kind == 10 {
                        try doc.put(obj: obj, index: UInt64(at), value: .Int(values[0]))
                        models[peer][at] = values[0]
                    } else {
                        let inserted = step.kind >= 11 ? [values[0]] : []
                        try doc.splice(obj: obj, start: UInt64(at), delete: Int64(deleted), values: inserted.map { .Int($0) })
                        models[peer].replaceSubrange(at..<at + deleted, with: inserted)
                    }
                case 13...14:
                    let source = (peer + 1 + step.value % (script.peers - 1)) % script.peers
                    guard let merged = try Self.merge(docs, into: peer, from: source, read: read) else { return }
                    models[peer] = merged
                case 15:
                    docs[peer] = try Self.reloaded(doc)
                default:
                    continue
                }
                try docs[peer].checkInvariants()
                let actual = try read(docs[peer])
                #expect(actual == models[peer], "peer \(peer) after step \(index) \(step)")
                if actual != models[peer] { return }
            }
            deepest = max(deepest, docs.map { Self.treeHeight($0, obj) }.max()!)
        }
        #expect(deepest >= 3, "the scripts grew no sequence three tree levels deep")
    }

    // MARK: Text

    /// Characters one to four UTF-8 bytes wide.
    static let alphabet: [Unicode.Scalar] = ["a", "b", "é", "€", "😀", "z"]

    /// The UTF-8 units of the first `count` scalars of `model`.
    static func units(_ model: [Unicode.Scalar], upTo count: Int) -> Int {
        model[..<count].reduce(0) { $0 + UTF8.width($1) }
    }

    @Test("text splices, marks and merges between peers match a string model")
    func text() async throws {
        var deepest = 0
        await propertyCheck(count: 3, input: Self.script(steps: 100...100)) { script in
            var (docs, obj) = try Self.peers(script.peers, type: .Text)
            var models = [[Unicode.Scalar]](repeating: [], count: script.peers)
            func read(_ doc: Document) throws -> [Unicode.Scalar] { Array(try doc.text(obj: obj).unicodeScalars) }
            for (index, step) in script.steps.enumerated() {
                let peer = step.peer % script.peers, doc = docs[peer], model = models[peer]
                let inserted = (0...step.count).map { Self.alphabet[(step.value + $0) % Self.alphabet.count] }
                switch step.kind {
                case 0...6:
                    let at = step.position % (model.count + 1)
                    try doc.spliceText(obj: obj, start: UInt64(Self.units(model, upTo: at)), delete: 0, value: String(String.UnicodeScalarView(inserted)))
                    models[peer].insert(contentsOf: inserted, at: at)
                case 7...10 where !model.isEmpty:
                    let at = step.position % model.count
                    let end = min(model.count, at + step.count + 1)
                    let replacement = step.kind == 10 ? Array(inserted.prefix(1)) : []
                    let start = Self.units(model, upTo: at)
                    try doc.spliceText(obj: obj, start: UInt64(start), delete: Int64(Self.units(model, upTo: end) - start),
                                       value: String(String.UnicodeScalarView(replacement)))
                    models[peer].replaceSubrange(at..<end, with: replacement)
                case 11...12 where !model.isEmpty:
                    let at = step.position % model.count
                    let (start, end) = (Self.units(model, upTo: at), Self.units(model, upTo: min(model.count, at + step.count + 1)))
                    let name = step.value % 2 == 0 ? "bold" : "link"
                    let expand: [ExpandMark] = [.none, .before, .after, .both]
                    try doc.mark(obj: obj, start: UInt64(start), end: UInt64(end), expand: expand[step.value / 2 % 4],
                                 name: name, value: .Int(Int64(step.value)))
                    let marks = try doc.marks(obj: obj).filter { $0.name == name && $0.value == .Int(Int64(step.value)) }
                    let uncovered = (start..<end).first { unit in !marks.contains { $0.start <= unit && unit < $0.end } }
                    #expect(uncovered == nil, "peer \(peer) after step \(index) \(step): unit \(uncovered ?? 0) lacks the new mark")
                case 13...14:
                    let source = (peer + 1 + step.value % (script.peers - 1)) % script.peers
                    guard let merged = try Self.merge(docs, into: peer, from: source, read: read) else { return }
                    models[peer] = merged
                case 15:
                    docs[peer] = try Self.reloaded(doc)
                default:
                    continue
                }
                try docs[peer].checkInvariants()
                let actual = try read(docs[peer])
                #expect(actual == models[peer], "peer \(peer) after step \(index) \(step)")
                if actual != models[peer] { return }
            }
            deepest = max(deepest, docs.map { Self.treeHeight($0, obj) }.max()!)
        }
        #expect(deepest >= 3, "the scripts grew no sequence three tree levels deep")
    }
}

import Foundation
import PropertyBased
import Testing
import AutomergeTestSupport
@_spi(Conformance) @testable import Automerge

/// Thousands of random splices, puts, marks, merges and reloads between two
/// or three peers on one list or text, from an empty sequence (through the
/// first leaf and root splits) and from one three tree levels deep (whose
/// full leaves split on every insert). After every step the edited peer
/// reads like a plain array or string model; a merged peer reads like a
/// second document holding the same changes, and becomes the model. Every
/// document's invariants are checked after every mutation: by the suite's
/// trait after each call (debug builds), and explicitly (any build).
@Suite("Sequence model", .checkingInvariants, .ownThread)
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

    static let script = zip(
        Gen.int(in: 2...3),
        zip(Gen.int(in: 0...2), Gen.int(in: 0...15), Gen.int(in: 0...4095), Gen.int(in: 0...95), Gen.int(in: 0...63))
            .map { Step(peer: $0.0, kind: $0.1, position: $0.2, count: $0.3, value: $0.4) }
            .array(of: 1...80)
    ).map { (peers: $0.0, steps: $0.1) }

    /// Elements appended in one splice to start three levels deep: more
    /// than maxChildren full leaves.
    static let deepStart = (SequenceTree.maxChildren + 2) * SequenceTree.maxLeafElements

    @Test("list splices, puts and merges between peers match an array model", arguments: [0, deepStart])
    func list(startLength: Int) async {
        await propertyCheck(count: 3, input: Self.script) { script in
            try Self.run(ListModel.self, script: script, startLength: startLength)
        }
    }

    @Test("text splices, marks and merges between peers match a string model", arguments: [0, deepStart])
    func text(startLength: Int) async {
        await propertyCheck(count: 3, input: Self.script) { script in
            try Self.run(TextModel.self, script: script, startLength: startLength)
        }
    }

    /// Runs `script` on peers that share a sequence of `startLength`
    /// elements, comparing each step's result with `Kind`'s model.
    static func run<Kind: SequenceModel>(_: Kind.Type, script: (peers: Int, steps: [Step]), startLength: Int) throws {
        let first = Document(textEncoding: .utf8)
        first.actor = actorId(1)
        let obj = try first.putObject(obj: .ROOT, key: "seq", ty: Kind.type)
        var start = Kind.Model()
        try Kind.insert(Kind.values(count: startLength, from: 0), at: 0, in: first, obj, model: &start)
        if startLength > 0 { #expect(treeHeight(first, obj) >= 3) }
        var docs = [first] + (2...script.peers).map { first.forkPeer(UInt8($0)) }
        var models = [Kind.Model](repeating: start, count: script.peers)
        for (index, step) in script.steps.enumerated() {
            let peer = step.peer % script.peers
            switch step.kind {
            case 13...14:
                let source = (peer + 1 + step.value % (script.peers - 1)) % script.peers
                try docs[peer].merge(other: docs[source])
                let reference = docs[source].fork()
                try reference.merge(other: docs[peer])
                try reference.checkInvariants()
                let (merged, expected) = (try Kind.read(docs[peer], obj), try Kind.read(reference, obj))
                #expect(merged == expected, "peer \(peer) after merging peer \(source), step \(index) \(step)")
                if merged != expected { return }
                models[peer] = merged
            case 15:
                let loaded = try Document(docs[peer].save(), textEncoding: .utf8)
                loaded.actor = docs[peer].actor
                docs[peer] = loaded
            default:
                guard try Kind.edit(step, docs[peer], obj, model: &models[peer]) else { continue }
            }
            try docs[peer].checkInvariants()
            let actual = try Kind.read(docs[peer], obj)
            #expect(actual == models[peer], "peer \(peer) after step \(index) \(step)")
            if actual != models[peer] { return }
        }
    }

    /// Tree levels of the sequence `obj` of `doc` (1 for a lone leaf).
    static func treeHeight(_ doc: Document, _ obj: ObjId) -> Int {
        doc.locked { state in
            guard let (_, index) = state.ops.resolve(obj) else { return 0 }
            let tree = state.ops.sequence(of: state.ops.objects[index])
            var levels = 1, node = tree.root
            while !tree.nodes[Int(node)].isLeaf { node = tree.nodes[Int(node)].children[0]; levels += 1 }
            return levels
        }
    }
}

/// What differs between a list and a text in ``SequenceModelTests``: the
/// model, how it is read back, and what a step's edit does.
protocol SequenceModel {
    associatedtype Model: Equatable & RangeReplaceableCollection
    static var type: ObjType { get }
    /// `count` values for an insert; `seed` varies them.
    static func values(count: Int, from seed: Int) -> Model
    static func read(_ doc: Document, _ obj: ObjId) throws -> Model
    /// Inserts `values` at model index `at` of the document and the model.
    static func insert(_ values: Model, at: Int, in doc: Document, _ obj: ObjId, model: inout Model) throws
    /// Applies an edit step (insert, delete, put, mark or replace) to the
    /// document and the model; false for one that does not apply (a delete
    /// from an empty sequence).
    static func edit(_ step: SequenceModelTests.Step, _ doc: Document, _ obj: ObjId, model: inout Model) throws -> Bool
}

enum ListModel: SequenceModel {
    static let type = ObjType.List

    static func values(count: Int, from seed: Int) -> [Int64] { (0..<count).map { Int64(seed * 100 + $0) } }

    static func read(_ doc: Document, _ obj: ObjId) throws -> [Int64] {
        try doc.values(obj: obj).map { value -> Int64 in
            if case .Scalar(.Int(let n)) = value { return n }
            return -1
        }
    }

    static func insert(_ values: [Int64], at: Int, in doc: Document, _ obj: ObjId, model: inout [Int64]) throws {
        try doc.splice(obj: obj, start: UInt64(at), delete: 0, values: values.map { .Int($0) })
        model.insert(contentsOf: values, at: at)
    }

    static func edit(_ step: SequenceModelTests.Step, _ doc: Document, _ obj: ObjId, model: inout [Int64]) throws -> Bool {
        let values = Self.values(count: step.count + 1, from: step.value)
        if step.kind <= 6 {
            try insert(values, at: step.position % (model.count + 1), in: doc, obj, model: &model)
            return true
        }
        guard !model.isEmpty else { return false }
        let at = step.position % model.count
        if step.kind == 10 {
            try doc.put(obj: obj, index: UInt64(at), value: .Int(values[0]))
            model[at] = values[0]
            return true
        }
        let deleted = min(step.count + 1, model.count - at)
        let inserted = step.kind >= 11 ? [values[0]] : []
        try doc.splice(obj: obj, start: UInt64(at), delete: Int64(deleted), values: inserted.map { .Int($0) })
        model.replaceSubrange(at..<at + deleted, with: inserted)
        return true
    }
}

/// Text in UTF-8 units, of characters one to four bytes wide; the model
/// holds scalars, and positions are converted at scalar boundaries.
enum TextModel: SequenceModel {
    static let type = ObjType.Text
    static let alphabet: [Unicode.Scalar] = ["a", "b", "é", "€", "😀", "z"]

    static func values(count: Int, from seed: Int) -> [Unicode.Scalar] { (0..<count).map { alphabet[(seed + $0) % alphabet.count] } }

    static func read(_ doc: Document, _ obj: ObjId) throws -> [Unicode.Scalar] { Array(try doc.text(obj: obj).unicodeScalars) }

    /// The UTF-8 units of the first `count` scalars of `model`.
    static func units(_ model: [Unicode.Scalar], upTo count: Int) -> Int {
        model[..<count].reduce(0) { $0 + UTF8.width($1) }
    }

    static func string(_ scalars: [Unicode.Scalar]) -> String { String(String.UnicodeScalarView(scalars)) }

    static func insert(_ values: [Unicode.Scalar], at: Int, in doc: Document, _ obj: ObjId, model: inout [Unicode.Scalar]) throws {
        try doc.spliceText(obj: obj, start: UInt64(units(model, upTo: at)), delete: 0, value: string(values))
        model.insert(contentsOf: values, at: at)
    }

    static func edit(_ step: SequenceModelTests.Step, _ doc: Document, _ obj: ObjId, model: inout [Unicode.Scalar]) throws -> Bool {
        if step.kind <= 6 {
            try insert(values(count: step.count + 1, from: step.value), at: step.position % (model.count + 1), in: doc, obj, model: &model)
            return true
        }
        guard !model.isEmpty else { return false }
        let at = step.position % model.count
        let end = min(model.count, at + step.count + 1)
        let (start, stop) = (units(model, upTo: at), units(model, upTo: end))
        guard step.kind >= 11 else {
            let replacement = step.kind == 10 ? values(count: 1, from: step.value) : []
            try doc.spliceText(obj: obj, start: UInt64(start), delete: Int64(stop - start), value: string(replacement))
            model.replaceSubrange(at..<end, with: replacement)
            return true
        }
        let name = step.value % 2 == 0 ? "bold" : "link"
        let value = ScalarValue.Int(Int64(step.value))
        let expand: [ExpandMark] = [.none, .before, .after, .both]
        try doc.mark(obj: obj, start: UInt64(start), end: UInt64(stop), expand: expand[step.value / 2 % 4], name: name, value: value)
        // The newest mark of a name wins wherever it reaches.
        let marks = try doc.marks(obj: obj).filter { $0.name == name && $0.value == value }
        let uncovered = (start..<stop).first { unit in !marks.contains { $0.start <= unit && unit < $0.end } }
        #expect(uncovered == nil, "after \(step): unit \(uncovered ?? 0) lacks the new mark")
        return true
    }
}

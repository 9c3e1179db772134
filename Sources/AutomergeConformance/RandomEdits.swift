import Automerge
import Foundation

/// A small deterministic generator (SplitMix64), so a failing seed reproduces.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One edit of a random script, as small integers that ``RandomEdits``
/// interprets against the current document. Every combination of values is
/// a valid edit, so a property-test shrinker may change or drop any of them
/// and still get a runnable script; values shrink towards 0, which means
/// "the root map" and "the simplest edit".
public struct EditChoice: Hashable, Sendable, CustomStringConvertible {
    /// What to do, interpreted by the type of the target object (see ``RandomEdits/kinds``).
    public var kind: Int
    /// Which object: an index into the document's objects, root first.
    public var target: Int
    /// Where: a key or a position.
    public var position: Int
    /// How much: a length, an end position, a delete count.
    public var extent: Int
    /// Which value: an index into ``RandomEdits/scalars`` or ``RandomEdits/snippets``.
    public var value: Int

    public init(kind: Int, target: Int, position: Int, extent: Int, value: Int) {
        self.kind = kind
        self.target = target
        self.position = position
        self.extent = extent
        self.value = value
    }

    /// A uniformly random choice.
    public static func random(using rng: inout SeededGenerator) -> EditChoice {
        EditChoice(
            kind: Int.random(in: 0..<RandomEdits.kinds, using: &rng),
            target: Int.random(in: 0..<64, using: &rng),
            position: Int.random(in: 0..<64, using: &rng),
            extent: Int.random(in: 0..<8, using: &rng),
            value: Int.random(in: 0..<256, using: &rng))
    }

    public var description: String { "(\(kind),\(target),\(position),\(extent),\(value))" }
}

/// Random edits through the public API: every op kind (put, putObject,
/// insert, insertObject, delete, splice, spliceText, updateText, increment,
/// mark, unmark), nested objects, text in many scripts with astral
/// characters, ZWJ sequences, flags and combining marks, scalar extremes,
/// counters and conflicts-to-be.
public enum RandomEdits {
    /// Number of distinct ``EditChoice/kind`` values.
    public static let kinds = 8

    public static let keys = ["a", "b", "c", "", "é", "e\u{301}", "日本", "🔑"]

    public static let snippets = [
        "x", "hello", "é", "e\u{301}", "👍🏽", "🇯🇵", "👨‍👩‍👧", "שלום", "\n", "", "Ωμέγα", "привет", "مرحبا",
        "नमस्ते", "ภาษาไทย", "中文", "한국어", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "a\u{0308}\u{0301}", "🏳️‍🌈",
    ]

    /// Scalars including every type's extremes. Unknown values use type codes 10...15.
    public static let scalars: [ScalarValue] = [
        .Int(0), .Int(1), .Int(-1), .Int(Int64.min), .Int(Int64.max), .Int(63), .Int(-64), .Int(1 << 40),
        .Uint(0), .Uint(UInt64.max), .Uint(127), .Uint(128),
        .F64(0.0), .F64(-0.0), .F64(1.5), .F64(.infinity), .F64(-.infinity), .F64(.nan),
        .F64(Double(bitPattern: 0x7FF0_0000_0000_0001)), .F64(Double(bitPattern: 0xFFF8_0000_0000_00FF)),
        .F64(.leastNonzeroMagnitude), .F64(.greatestFiniteMagnitude),
        .String(""), .String("s"), .String("👨‍👩‍👧"), .String("e\u{301}"),
        .Bytes(Data()), .Bytes(Data([0, 255])), .Boolean(true), .Boolean(false), .Null,
        .Timestamp(Date(timeIntervalSince1970: 0)), .Timestamp(Date(timeIntervalSince1970: -86_400.5)),
        .Timestamp(Date(timeIntervalSince1970: 1_700_000_000.123)),
        .Counter(0), .Counter(-7), .Counter(Int64.max),
        .Unknown(typeCode: 10, data: Data()), .Unknown(typeCode: 15, data: Data([1, 2, 3])),
    ]

    /// Every object of `doc`, root first, then breadth-first in value order.
    public static func objects(_ doc: Document) -> [(ObjId, ObjType)] {
        var result: [(ObjId, ObjType)] = [(.ROOT, .Map)]
        var index = 0
        while index < result.count {
            let (obj, type) = result[index]
            index += 1
            if type == .Text { continue }
            for case .Object(let child, let childType) in (try? doc.values(obj: obj)) ?? [] {
                result.append((child, childType))
            }
        }
        return result
    }

    /// Applies `count` random edits to `doc`, committing now and then.
    public static func apply(_ count: Int, to doc: Document, using rng: inout SeededGenerator) throws {
        for _ in 0..<count {
            try apply(EditChoice.random(using: &rng), to: doc)
            if Int.random(in: 0..<5, using: &rng) == 0 { doc.commitReproducibly() }
        }
    }

    /// Applies one edit and returns what it did, for traces.
    @discardableResult
    public static func apply(_ choice: EditChoice, to doc: Document) throws -> String {
        let objects = objects(doc)
        let (obj, type) = objects[choice.target % objects.count]
        let name = obj.isRoot ? "root" : "obj\(choice.target % objects.count)"
        let length = doc.length(obj: obj)
        let kind = choice.kind % kinds
        func scalar() -> ScalarValue { scalars[choice.value % scalars.count] }
        func snippet() -> String { snippets[choice.value % snippets.count] }
        func objectType() -> ObjType { [.Map, .List, .Text][choice.value % 3] }

        switch type {
        case .Map:
            let key = keys[choice.position % keys.count]
            switch kind {
            case 1:
                try doc.delete(obj: obj, key: key)
                return "\(name).delete(\(key.debugDescription))"
            case 2:
                let type = objectType()
                _ = try doc.putObject(obj: obj, key: key, ty: type)
                return "\(name).putObject(\(key.debugDescription), \(type))"
            case 4:
                if try doc.getAll(obj: obj, key: key).contains(where: isCounter) {
                    let by = Int64(choice.value % 11) - 5
                    try doc.increment(obj: obj, key: key, by: by)
                    return "\(name).increment(\(key.debugDescription), \(by))"
                }
                try doc.put(obj: obj, key: key, value: .Counter(Int64(choice.value % 4)))
                return "\(name).put(\(key.debugDescription), Counter(\(choice.value % 4)))"
            default:
                try doc.put(obj: obj, key: key, value: scalar())
                return "\(name).put(\(key.debugDescription), \(scalar()))"
            }
        case .List:
            let index = UInt64(choice.position) % (length + 1)
            if length == 0 || kind == 0 || kind == 7 {
                try doc.insert(obj: obj, index: index, value: scalar())
                return "\(name).insert(\(index), \(scalar()))"
            }
            let existing = UInt64(choice.position) % length
            switch kind {
            case 1:
                try doc.delete(obj: obj, index: existing)
                return "\(name).delete(\(existing))"
            case 2:
                let type = objectType()
                _ = try doc.insertObject(obj: obj, index: index, ty: type)
                return "\(name).insertObject(\(index), \(type))"
            case 3:
                try doc.put(obj: obj, index: existing, value: scalar())
                return "\(name).put(\(existing), \(scalar()))"
            case 4:
                if try doc.getAll(obj: obj, index: existing).contains(where: isCounter) {
                    try doc.increment(obj: obj, index: existing, by: 3)
                    return "\(name).increment(\(existing), 3)"
                }
                try doc.insert(obj: obj, index: index, value: .Counter(1))
                return "\(name).insert(\(index), Counter(1))"
            case 5:
                let type = objectType()
                _ = try doc.putObject(obj: obj, index: existing, ty: type)
                return "\(name).putObject(\(existing), \(type))"
            default:
                let delete = Int64(UInt64(choice.extent) % (length - index + 1))
                let values = [scalar(), scalars[(choice.value + 7) % scalars.count]]
                try doc.splice(obj: obj, start: index, delete: delete, values: values)
                return "\(name).splice(\(index), \(delete), \(values))"
            }
        case .Text:
            let start = UInt64(choice.position) % (length + 1)
            let room = Int64(length - start)
            switch kind {
            case 1 where length > 0:
                let delete = max(1, min(Int64(choice.extent), room))
                let at = room == 0 ? start - 1 : start
                try doc.spliceText(obj: obj, start: at, delete: min(delete, Int64(length - at)))
                return "\(name).spliceText(\(at), delete \(min(delete, Int64(length - at))))"
            case 3:
                let delete = min(Int64(choice.extent), room)
                try doc.spliceText(obj: obj, start: start, delete: delete, value: snippet())
                return "\(name).spliceText(\(start), \(delete), \(snippet().debugDescription))"
            case 4:
                var text = try doc.text(obj: obj)
                text.insert(contentsOf: snippet(), at: text.index(text.startIndex, offsetBy: min(choice.position, text.count)))
                if choice.extent % 2 == 1, let last = text.indices.last { text.remove(at: last) }
                try doc.updateText(obj: obj, value: text)
                return "\(name).updateText(\(text.debugDescription))"
            case 5, 6:
                let end = start + UInt64(choice.extent) % (length - start + 1)
                let expand: ExpandMark = [.after, .before, .both, .none][choice.value % 4]
                let markName = ["bold", "link", "comment"][choice.extent % 3]
                let value: ScalarValue = kind == 6 ? .Null : [ScalarValue.Boolean(true), .String("u"), .Int(2)][choice.value % 3]
                try doc.mark(obj: obj, start: start, end: end, expand: expand, name: markName, value: value)
                return "\(name).mark(\(start)..<\(end), \(expand), \(markName)=\(value))"
            default:
                try doc.spliceText(obj: obj, start: start, delete: 0, value: snippet())
                return "\(name).spliceText(\(start), 0, \(snippet().debugDescription))"
            }
        }
    }

    static func isCounter(_ value: Value) -> Bool {
        if case .Scalar(.Counter) = value { return true }
        return false
    }
}

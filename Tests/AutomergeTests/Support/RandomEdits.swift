import Foundation
@testable import Automerge

/// A small deterministic generator (SplitMix64), so a failing seed reproduces.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random edits through the public API: every op kind, nested objects,
/// text with marks and non-BMP characters, counters, conflicts-to-be.
enum RandomEdits {
    static let keys = ["a", "b", "c", "é", "e\u{301}", "日本", "🔑"]
    static let snippets = ["x", "hello", "é", "e\u{301}", "👍🏽", "🇯🇵", "👨‍👩‍👧", "שלום", "\n", ""]

    static func scalar(_ rng: inout SeededGenerator) -> ScalarValue {
        switch Int.random(in: 0..<9, using: &rng) {
        case 0: return .Int(Int64.random(in: -1000...1000, using: &rng))
        case 1: return .Uint(UInt64.random(in: 0...UInt64.max, using: &rng))
        case 2: return .F64([0.0, -0.0, 1.5, .infinity, -1e300][Int.random(in: 0..<5, using: &rng)])
        case 3: return .String(snippets.randomElement(using: &rng)!)
        case 4: return .Boolean(Bool.random(using: &rng))
        case 5: return .Null
        case 6: return .Bytes(Data((0..<Int.random(in: 0..<5, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case 7: return .Timestamp(Date(timeIntervalSince1970: Double(Int.random(in: 0...2_000_000_000, using: &rng))))
        default: return .Counter(Int64.random(in: -10...10, using: &rng))
        }
    }

    /// Every object of `doc`, found by walking from the root.
    static func objects(_ doc: Document) -> [(ObjId, ObjType)] {
        var result: [(ObjId, ObjType)] = [(.ROOT, .Map)]
        var index = 0
        while index < result.count {
            let (obj, type) = result[index]
            index += 1
            let values = (try? doc.values(obj: obj)) ?? []
            if type == .Text { continue }
            for case .Object(let child, let childType) in values { result.append((child, childType)) }
        }
        return result
    }

    /// Applies `count` random edits to `doc`; errors from invalid picks are impossible by construction.
    static func apply(_ count: Int, to doc: Document, using rng: inout SeededGenerator) throws {
        for _ in 0..<count {
            let objects = objects(doc)
            let (obj, type) = objects.randomElement(using: &rng)!
            let length = doc.length(obj: obj)
            switch type {
            case .Map:
                let key = keys.randomElement(using: &rng)!
                switch Int.random(in: 0..<10, using: &rng) {
                case 0: try doc.delete(obj: obj, key: key)
                case 1: _ = try doc.putObject(obj: obj, key: key, ty: [.Map, .List, .Text].randomElement(using: &rng)!)
                case 2:
                    if case .Scalar(.Counter)? = try doc.get(obj: obj, key: key) {
                        try doc.increment(obj: obj, key: key, by: Int64.random(in: -5...5, using: &rng))
                    } else {
                        try doc.put(obj: obj, key: key, value: .Counter(0))
                    }
                default: try doc.put(obj: obj, key: key, value: scalar(&rng))
                }
            case .List:
                let choice = Int.random(in: 0..<10, using: &rng)
                if length == 0 || choice < 4 {
                    try doc.insert(obj: obj, index: UInt64.random(in: 0...length, using: &rng), value: scalar(&rng))
                } else if choice == 4 {
                    _ = try doc.insertObject(obj: obj, index: UInt64.random(in: 0...length, using: &rng), ty: [.Map, .List, .Text].randomElement(using: &rng)!)
                } else if choice == 5 {
                    try doc.delete(obj: obj, index: UInt64.random(in: 0..<length, using: &rng))
                } else if choice == 6 {
                    let start = UInt64.random(in: 0...length, using: &rng)
                    try doc.splice(obj: obj, start: start, delete: Int64.random(in: 0...Int64(length - start), using: &rng), values: [scalar(&rng), scalar(&rng)])
                } else if choice == 7, case .Scalar(.Counter)? = try doc.get(obj: obj, index: 0) {
                    try doc.increment(obj: obj, index: 0, by: 1)
                } else {
                    try doc.put(obj: obj, index: UInt64.random(in: 0..<length, using: &rng), value: scalar(&rng))
                }
            case .Text:
                let choice = Int.random(in: 0..<10, using: &rng)
                if choice < 7 || length == 0 {
                    let start = UInt64.random(in: 0...length, using: &rng)
                    let delete = Int64.random(in: 0...min(3, Int64(length - start)), using: &rng)
                    try doc.spliceText(obj: obj, start: start, delete: delete, value: snippets.randomElement(using: &rng)!)
                } else {
                    let start = UInt64.random(in: 0...length, using: &rng)
                    let end = UInt64.random(in: start...length, using: &rng)
                    let expand: ExpandMark = [.before, .after, .both, .none].randomElement(using: &rng)!
                    let value: ScalarValue = choice == 9 ? .Null : .Boolean(true)
                    try doc.mark(obj: obj, start: start, end: end, expand: expand, name: ["bold", "link"].randomElement(using: &rng)!, value: value)
                }
            }
            if Int.random(in: 0..<5, using: &rng) == 0 { doc.commitWith() }
        }
    }
}

import Automerge

extension EditScript.PathElement: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    /// A map key in a path literal: `["todo", 0, "title"]`.
    public init(stringLiteral key: String) { self = .key(key) }
    /// A list index in a path literal.
    public init(integerLiteral index: UInt64) { self = .index(index) }
}

/// Short spellings of script steps for the script vectors and tests.
enum S {
    typealias Path = [EditScript.PathElement]

    static func put(_ obj: Path, _ key: String, _ value: ScalarValue, on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .put(obj: obj, at: .key(key), value: value))
    }
    static func put(_ obj: Path, index: UInt64, _ value: ScalarValue, on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .put(obj: obj, at: .index(index), value: value))
    }
    static func object(_ obj: Path, _ key: String, _ type: ObjType, on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .putObject(obj: obj, at: .key(key), type: type))
    }
    static func object(_ obj: Path, index: UInt64, _ type: ObjType, on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .putObject(obj: obj, at: .index(index), type: type))
    }
    static func insert(_ obj: Path, _ index: UInt64, _ value: ScalarValue, on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .insert(obj: obj, index: index, value: value))
    }
    static func insertObject(_ obj: Path, _ index: UInt64, _ type: ObjType, on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .insertObject(obj: obj, index: index, type: type))
    }
    static func delete(_ obj: Path, _ key: String, on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .delete(obj: obj, at: .key(key)))
    }
    static func delete(_ obj: Path, index: UInt64, on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .delete(obj: obj, at: .index(index)))
    }
    static func increment(_ obj: Path, _ key: String, by: Int64, on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .increment(obj: obj, at: .key(key), by: by))
    }
    static func increment(_ obj: Path, index: UInt64, by: Int64, on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .increment(obj: obj, at: .index(index), by: by))
    }
    static func splice(_ obj: Path, _ index: UInt64, delete: Int64, _ values: [ScalarValue], on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .splice(obj: obj, index: index, delete: delete, values: values))
    }
    static func text(_ obj: Path, _ index: UInt64, delete: Int64 = 0, _ text: String, on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .spliceText(obj: obj, index: index, delete: delete, text: text))
    }
    static func update(_ obj: Path, _ text: String, on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .updateText(obj: obj, text: text))
    }
    static func mark(_ obj: Path, _ range: Range<UInt64>, _ name: String, _ value: ScalarValue = .Boolean(true),
                     _ expand: ExpandMark = .after, on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .mark(obj: obj, start: range.lowerBound, end: range.upperBound, name: name, value: value, expand: expand))
    }
    static func unmark(_ obj: Path, _ range: Range<UInt64>, _ name: String, _ expand: ExpandMark = .after,
                       on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .unmark(obj: obj, start: range.lowerBound, end: range.upperBound, name: name, expand: expand))
    }
    static func commit(_ message: String? = nil, time: Int64? = nil, on peer: String? = nil) -> EditScript.Step {
        .init(peer: peer, .commit(message: message, time: time))
    }
    static func fork(_ peer: String = "a", as name: String) -> EditScript.Step {
        .init(peer: peer, .fork(as: name, actor: actor(name)))
    }
    static func merge(_ peer: String = "a", from: String) -> EditScript.Step { .init(peer: peer, .merge(from: from)) }
    static func save(_ peer: String = "a", into slot: String) -> EditScript.Step { .init(peer: peer, .save(into: slot)) }
    static func load(_ peer: String, from slot: String, actor name: String) -> EditScript.Step {
        .init(peer: peer, .load(from: slot, actor: actor(name)))
    }

    /// 16 bytes spelling the peer's name, repeated: `a` is `6161...61`.
    static func actor(_ name: String) -> [UInt8] {
        let bytes = Array(name.utf8)
        return (0..<16).map { bytes[$0 % bytes.count] }
    }

    /// Peer `a` (and more, by name), each stamped at its own second of 2023-11-14.
    static func script(_ description: String, peers names: [String] = ["a"], result: String? = nil,
                       _ steps: [EditScript.Step]) -> EditScript {
        let peers = names.enumerated().map { offset, name in
            EditScript.Peer(name: name, actor: actor(name), time: 1_700_000_000_000 + Int64(offset) * 1000)
        }
        return EditScript(description: description, peers: peers, steps: steps, result: result)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The identity of one peer (one writer) of a document: 1 to 128 bytes,
/// 16 random bytes by default.
public struct ActorId: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The raw bytes of the actor id.
    ///
    /// Made on each read: every decoded change names its actors, and a
    /// second copy of the bytes held beside `bytes` cost each of them a
    /// heap block of its own.
    public var data: Data { Data(bytes) }
    @usableFromInline let bytes: [UInt8]

    /// A new random actor id (16 bytes, as Rust and automerge-swift make them).
    public init() {
        self.init(uncheckedBytes: withUnsafeBytes(of: UUID().uuid) { [UInt8]($0) })
    }

    /// An actor id with the bytes of `uuid`.
    public init(uuid: UUID) {
        self.init(uncheckedBytes: withUnsafeBytes(of: uuid.uuid) { [UInt8]($0) })
    }

    /// An actor id with the given bytes, or `nil` unless it has 1...128 bytes.
    public init?(data: Data) {
        guard (1...128).contains(data.count) else { return nil }
        self.init(uncheckedBytes: [UInt8](data))
    }

    /// Parses hex (either case, as ``description`` and ``hexString`` print it); `nil` for anything else
    /// or for a length outside 1...128 bytes.
    public init?(hexString: String) {
        guard let bytes = Hex.decode(hexString), (1...128).contains(bytes.count) else { return nil }
        self.init(uncheckedBytes: bytes)
    }

    /// Any byte string read from a file (whose length the format does not limit).
    init(uncheckedBytes bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Uppercase hex of the bytes, as automerge-swift prints an actor.
    public var description: String { hexString.uppercased() }

    /// Lowercase hex of the bytes, as Rust prints an actor (in op ids and cursors).
    public var hexString: String { Hex.encode(bytes) }

    /// Bytewise lexicographic order, the order Automerge uses to break ties between op ids.
    public static func < (lhs: ActorId, rhs: ActorId) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    public static func == (lhs: ActorId, rhs: ActorId) -> Bool { lhs.bytes == rhs.bytes }
    public func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
}

/// The SHA-256 hash that identifies a change.
public struct ChangeHash: Hashable, Comparable, Sendable, CustomStringConvertible {
    // Four big-endian words: comparing them in order is comparing the bytes.
    let w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64

    /// A hash from its 32 raw bytes; `nil` for any other length.
    public init?(data: Data) {
        guard data.count == 32 else { return nil }
        self.init(bytes: [UInt8](data))
    }

    /// Parses 64 hex digits.
    public init?(hexString: String) {
        guard let bytes = Hex.decode(hexString), bytes.count == 32 else { return nil }
        self.init(bytes: bytes)
    }

    /// Exactly 32 bytes (the caller checks).
    init<C: Collection>(bytes: C) where C.Element == UInt8 {
        precondition(bytes.count == 32, "a change hash has 32 bytes")
        // Read word by word, without an array of words: every change loaded
        // or made builds its hash here.
        var index = bytes.startIndex
        func word() -> UInt64 {
            var word: UInt64 = 0
            for _ in 0..<8 {
                word = word << 8 | UInt64(bytes[index])
                bytes.formIndex(after: &index)
            }
            return word
        }
        let (a, b, c, d) = (word(), word(), word(), word())
        (w0, w1, w2, w3) = (a, b, c, d)
    }

    /// The 32 raw bytes.
    public var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(32)
        append(to: &out)
        return out
    }

    /// Appends the 32 raw bytes to `out` (for stores that write many hashes end to end).
    @_spi(Storage)
    public func append(to out: inout [UInt8]) {
        withUnsafeBytes(of: (w0.bigEndian, w1.bigEndian, w2.bigEndian, w3.bigEndian)) { out.append(contentsOf: $0) }
    }

    /// The 32 raw bytes.
    public var data: Data { Data(bytes) }

    /// 64 lowercase hex digits.
    public var description: String { Hex.encode(bytes) }

    /// Bytewise order.
    public static func < (lhs: ChangeHash, rhs: ChangeHash) -> Bool {
        (lhs.w0, lhs.w1, lhs.w2, lhs.w3) < (rhs.w0, rhs.w1, rhs.w2, rhs.w3)
    }
}

/// The id of an object (map, list or text) in a document: the id of the op
/// that created it, or ``ROOT``. Ids are stable across forks and merges, so
/// an `ObjId` from one copy of a document addresses the same object in another.
public struct ObjId: Hashable, Sendable, CustomStringConvertible {
    let counter: UInt64
    let actor: ActorId
    /// Where the object was in the document that made this id, so that
    /// the next edit through the id finds it without looking its actor up
    /// by bytes and its op id up in the object index (two thirds of the cost
    /// of finding an object, which every edit and read does). Only a hint:
    /// a document checks it against its own tables before using it (see
    /// ``OpSet/resolve(_:)``), and equality and hashing ignore it.
    let hint: ObjectHint

    init(counter: UInt64, actor: ActorId, hint: ObjectHint = .none) {
        self.counter = counter
        self.actor = actor
        self.hint = hint
    }

    public static func == (lhs: ObjId, rhs: ObjId) -> Bool { lhs.counter == rhs.counter && lhs.actor == rhs.actor }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(counter)
        hasher.combine(actor)
    }

    /// The root map of every document.
    public static let ROOT = ObjId(counter: 0, actor: ActorId(uncheckedBytes: []))

    /// Whether this is the root map.
    public var isRoot: Bool { counter == 0 }

    /// `_root`, or `counter@actorhex` as Rust prints object ids.
    public var description: String { isRoot ? "_root" : "\(counter)@\(actor.hexString)" }

    /// Parses the form ``description`` prints.
    public init?(_ string: String) {
        if string == "_root" { self = .ROOT; return }
        let parts = string.split(separator: "@", maxSplits: 1)
        guard parts.count == 2, let counter = UInt64(parts[0]), counter > 0,
              let actor = ActorId(hexString: String(parts[1])) else { return nil }
        self.init(counter: counter, actor: actor)
    }
}

/// A document's actor index for an ``ObjId``'s actor and the object's
/// position in its object table (see ``ObjId/hint``).
struct ObjectHint: Sendable {
    let actor: UInt32
    /// -1 for no hint.
    let index: Int32

    static let none = ObjectHint(actor: 0, index: -1)
}

/// The kind of an object in a document.
public enum ObjType: Equatable, Hashable, Sendable {
    /// A map with string keys.
    case Map
    /// A list of values.
    case List
    /// Collaborative text.
    case Text
}

/// A value read from a document: a scalar or a reference to an object.
public enum Value: Equatable, Hashable, Sendable {
    /// An object (map, list or text) with its id.
    case Object(ObjId, ObjType)
    /// A primitive value.
    case Scalar(ScalarValue)
}

/// A key in a map or an index in a list.
public enum Prop: Equatable, Hashable, Sendable {
    /// A map key.
    case Key(String)
    /// A list or text index.
    case Index(UInt64)
}

/// One step of the path from the root to an object.
public struct PathElement: Equatable, Hashable, Sendable {
    /// The object this step is in.
    public let obj: ObjId
    /// The key or index within `obj`.
    public let prop: Prop

    /// A path step.
    public init(obj: ObjId, prop: Prop) {
        self.obj = obj
        self.prop = prop
    }
}

/// The unit in which text positions and lengths are counted.
public enum TextEncoding: Equatable, Hashable, Sendable {
    /// Unicode scalars (code points), the default, as in automerge-swift and Rust.
    case unicodeScalar
    /// UTF-8 bytes.
    case utf8
    /// UTF-16 code units, as JavaScript counts.
    case utf16
    /// Extended grapheme clusters; each inserted grapheme is one text element.
    case graphemeCluster
}

/// Lowercase hex out, either case in: the form ids, hashes and messages take
/// in text. Public to the conformance tooling only.
@_spi(Conformance)
public enum Hex {
    /// Two lowercase digits per byte.
    public static func encode<C: Sequence>(_ bytes: C) -> String where C.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of an even number of hex digits (either case); nil for anything else.
    public static func decode(_ string: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(string.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var i = 0
        while i < utf8.count {
            guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}

// MARK: Debug descriptions, as automerge-swift prints them

extension ChangeHash: CustomDebugStringConvertible {
    /// 64 lowercase hex digits.
    public var debugDescription: String { description }
}

extension ObjId: CustomDebugStringConvertible {
    /// `ObjId.ROOT`, or `ObjId(counter@actor)`.
    public var debugDescription: String { isRoot ? "ObjId.ROOT" : "ObjId(\(description))" }
}

extension ObjType: CustomDebugStringConvertible {
    /// `Map`, `List` or `Text`.
    public var debugDescription: String {
        switch self {
        case .Map: "Map"
        case .List: "List"
        case .Text: "Text"
        }
    }
}

extension Value: CustomDebugStringConvertible {
    /// `Object<id, type>` or `ScalarValue<value>`.
    public var debugDescription: String {
        switch self {
        case .Object(let id, let type): "Object<\(id), \(type)>"
        case .Scalar(let value): "ScalarValue<\(value)>"
        }
    }
}

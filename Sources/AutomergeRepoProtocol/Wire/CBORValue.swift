/// One CBOR data item (RFC 8949), as automerge-repo's messages are made of.
///
/// The cases follow CBOR's major types. Two choices shape the model:
/// - Integers keep CBOR's split: `.unsigned(n)` is n, `.negative(n)` is
///   -1 - n, so the whole range -2^64 ... 2^64 - 1 is held without loss.
/// - Floating-point numbers of every width (half, single, double) decode to
///   `.float(Double)`, which holds each of them exactly; the encoder writes
///   the shortest width that holds the value exactly (RFC 8949's preferred
///   serialization), so a value, not its width, is what round-trips. NaN is
///   written as the half-width quiet NaN `f9 7e00`; NaN payloads are not kept.
///
/// Equality is Swift's for each case but one: every NaN is equal to every
/// NaN (and hashes alike), since every NaN is written `f97e00`. So an item
/// holding a NaN is `==` to itself, and a map whose keys are NaNs repeats
/// a key, as its encoding would; with `Double`'s `==` each NaN key was new
/// to the decoder's key set while hashing like every other, which made
/// reading n of them take n² comparisons.
///
/// Maps keep their entries in the order given (CBOR maps are unordered, but
/// the order we write is the order the caller chose, as cbor-x does for the
/// JavaScript objects automerge-repo sends).
enum CBORValue: Hashable, Sendable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the integer -1 - n.
    case negative(UInt64)
    /// Major type 2: a byte string.
    case byteString([UInt8])
    /// Major type 3: a text string (valid UTF-8 on the wire).
    case textString(String)
    /// Major type 4: an array.
    case array([CBORValue])
    /// Major type 5: a map, its entries in wire order.
    case map([MapEntry])
    /// Major type 6: a tagged item, e.g. tag 2 (positive bignum) over a byte string.
    indirect case tagged(UInt64, CBORValue)
    /// Major type 7, values 20 and 21.
    case bool(Bool)
    /// Major type 7, value 22.
    case null
    /// Major type 7, value 23.
    case undefined
    /// Major type 7, an unassigned or reserved simple value (0–19, 32–255).
    case simple(SimpleValue)
    /// Major type 7, a half, single or double precision float.
    case float(Double)

    /// One key/value pair of a map.
    struct MapEntry: Hashable, Sendable {
        /// The entry's key (a text string in automerge-repo's messages).
        var key: CBORValue
        /// The entry's value.
        var value: CBORValue

        /// The pair `key: value`.
        init(_ key: CBORValue, _ value: CBORValue) {
            self.key = key
            self.value = value
        }
    }

    /// A simple value that has no case of its own: 0–19 or 32–255.
    ///
    /// 20–23 are `false`, `true`, `null` and `undefined`; 24–31 are not
    /// simple values on the wire (RFC 8949 §3.3), so neither can be made.
    struct SimpleValue: Hashable, Sendable {
        /// The value, never in 20...31.
        let rawValue: UInt8

        /// The simple value `rawValue`; `nil` for 20...31.
        init?(_ rawValue: UInt8) {
            guard !(20...31).contains(rawValue) else { return nil }
            self.rawValue = rawValue
        }
    }
}

extension CBORValue {
    static func == (lhs: CBORValue, rhs: CBORValue) -> Bool {
        switch (lhs, rhs) {
        case (.unsigned(let a), .unsigned(let b)), (.negative(let a), .negative(let b)): return a == b
        case (.byteString(let a), .byteString(let b)): return a == b
        // By their UTF-8, as CBOR and JavaScript compare them: Swift's `==` on
        // String would make "é" and "e\u{301}" one key and refuse a valid map.
        case (.textString(let a), .textString(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.array(let a), .array(let b)): return a == b
        case (.map(let a), .map(let b)): return a == b
        case (.tagged(let tagA, let a), .tagged(let tagB, let b)): return tagA == tagB && a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null), (.undefined, .undefined): return true
        case (.simple(let a), .simple(let b)): return a == b
        case (.float(let a), .float(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.unsigned, _), (.negative, _), (.byteString, _), (.textString, _), (.array, _), (.map, _), (.tagged, _),
             (.bool, _), (.null, _), (.undefined, _), (.simple, _), (.float, _):
            return false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case .unsigned(let n): hasher.combine(0 as UInt8); hasher.combine(n)
        case .negative(let n): hasher.combine(1 as UInt8); hasher.combine(n)
        case .byteString(let bytes): hasher.combine(2 as UInt8); hasher.combine(bytes)
        case .textString(let text):
            hasher.combine(3 as UInt8)
            var text = text
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .array(let items): hasher.combine(4 as UInt8); hasher.combine(items)
        case .map(let entries): hasher.combine(5 as UInt8); hasher.combine(entries)
        case .tagged(let tag, let item): hasher.combine(6 as UInt8); hasher.combine(tag); hasher.combine(item)
        case .bool(let flag): hasher.combine(7 as UInt8); hasher.combine(flag)
        case .null: hasher.combine(8 as UInt8)
        case .undefined: hasher.combine(9 as UInt8)
        case .simple(let simple): hasher.combine(10 as UInt8); hasher.combine(simple)
        // Double hashes 0.0 and -0.0 alike; every NaN hashes as the one NaN.
        case .float(let number): hasher.combine(11 as UInt8); hasher.combine(number.isNaN ? .nan : number)
        }
    }
}

extension CBORValue {
    /// An integer as CBOR holds it: `.unsigned` for 0 and up, `.negative` below.
    init(_ integer: Int) {
        self = integer >= 0 ? .unsigned(UInt64(integer)) : .negative(UInt64(-(integer + 1)))
    }

    /// A map with text-string keys, in the order given (duplicate keys are the caller's error).
    static func textMap(_ entries: KeyValuePairs<String, CBORValue>) -> CBORValue {
        .map(entries.map { MapEntry(.textString($0.key), $0.value) })
    }

    /// The integer, when it is one that fits `Int`.
    var intValue: Int? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int.max) ? Int(n) : nil
        case .negative(let n): return n <= UInt64(Int.max) ? -Int(n) - 1 : nil
        default: return nil
        }
    }

    /// The text, when this is a text string.
    var textValue: String? {
        if case .textString(let text) = self { return text }
        return nil
    }

    /// The bytes, when this is a byte string.
    var bytesValue: [UInt8]? {
        if case .byteString(let bytes) = self { return bytes }
        return nil
    }

    /// The value of the first entry whose key is the text string `key`, when this is a map.
    subscript(key: String) -> CBORValue? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.key == .textString(key) }?.value
    }
}

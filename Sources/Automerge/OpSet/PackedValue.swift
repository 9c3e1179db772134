/// A scalar as a ``PackedLeaf`` keeps it: a string of one Unicode scalar
/// (a typed character) is its UTF-8 bytes alone; anything else is a tag
/// byte and its payload. The tags are UTF-8 continuation bytes, which
/// never start a scalar, so the first byte tells the two apart.
enum PackedValue {
    private enum Tag: UInt8 {
        case null = 0x80, falseValue, trueValue, uint, int, f64, string, bytes, counter, timestamp, unknown
    }

    /// The bytes `value` packs into.
    static func size(of value: Primitive) -> Int {
        switch value {
        case .null, .bool: return 1
        case .uint(let v): return 1 + LEB128.unsignedSize(v)
        case .int(let v), .counter(let v), .timestamp(let v): return 1 + LEB128.signedSize(v)
        case .f64: return 9
        case .string(let s):
            let length = s.utf8.count
            return isOneScalar(s, length: length) ? length : 1 + LEB128.unsignedSize(UInt64(length)) + length
        case .bytes(let b): return 1 + LEB128.unsignedSize(UInt64(b.count)) + b.count
        case .unknown(_, let b): return 2 + LEB128.unsignedSize(UInt64(b.count)) + b.count
        }
    }

    static func append<Sink: ByteSink>(_ value: Primitive, to out: inout Sink) {
        switch value {
        case .null: out.append(Tag.null.rawValue)
        case .bool(let v): out.append(v ? Tag.trueValue.rawValue : Tag.falseValue.rawValue)
        case .uint(let v): out.append(Tag.uint.rawValue); LEB128.appendUnsigned(v, to: &out)
        case .int(let v): out.append(Tag.int.rawValue); LEB128.appendSigned(v, to: &out)
        case .counter(let v): out.append(Tag.counter.rawValue); LEB128.appendSigned(v, to: &out)
        case .timestamp(let v): out.append(Tag.timestamp.rawValue); LEB128.appendSigned(v, to: &out)
        case .f64(let v):
            out.append(Tag.f64.rawValue)
            withUnsafeBytes(of: v.bitPattern.littleEndian) { out.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self)) }
        case .string(var s):
            let length = s.utf8.count
            if !isOneScalar(s, length: length) {
                out.append(Tag.string.rawValue)
                LEB128.appendUnsigned(UInt64(length), to: &out)
            }
            s.withUTF8 { out.append(contentsOf: $0) }
        case .bytes(let b):
            out.append(Tag.bytes.rawValue)
            LEB128.appendUnsigned(UInt64(b.count), to: &out)
            b.withUnsafeBufferPointer { out.append(contentsOf: $0) }
        case .unknown(let code, let b):
            out.append(Tag.unknown.rawValue)
            out.append(code)
            LEB128.appendUnsigned(UInt64(b.count), to: &out)
            b.withUnsafeBufferPointer { out.append(contentsOf: $0) }
        }
    }

    /// Reads the value at `cursor`, advancing it past the value.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, at cursor: inout Int) -> Primitive {
        if let scalar = scalarUTF8(bytes, at: cursor) {
            cursor += scalar.count
            return .string(String(decoding: scalar, as: UTF8.self))
        }
        let tag = Tag(rawValue: bytes[cursor])!
        cursor += 1
        switch tag {
        case .null: return .null
        case .falseValue: return .bool(false)
        case .trueValue: return .bool(true)
        case .uint: return .uint(LEB128.readTrusted(bytes, at: &cursor))
        case .int: return .int(LEB128.readTrustedSigned(bytes, at: &cursor))
        case .counter: return .counter(LEB128.readTrustedSigned(bytes, at: &cursor))
        case .timestamp: return .timestamp(LEB128.readTrustedSigned(bytes, at: &cursor))
        case .f64:
            var bits: UInt64 = 0
            for offset in 0..<8 { bits |= UInt64(bytes[cursor + offset]) << (8 * offset) }
            cursor += 8
            return .f64(Double(bitPattern: bits))
        case .string:
            let payload = readPayload(bytes, at: &cursor)
            return .string(String(decoding: payload, as: UTF8.self))
        case .bytes: return .bytes(Array(readPayload(bytes, at: &cursor)))
        case .unknown:
            let code = bytes[cursor]
            cursor += 1
            return .unknown(typeCode: code, bytes: Array(readPayload(bytes, at: &cursor)))
        }
    }

    /// The UTF-8 bytes of the value at `start` if it is a one-scalar string,
    /// kept as itself: what a text reader or a save writes, without a String.
    static func scalarUTF8(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> UnsafeBufferPointer<UInt8>? {
        let first = bytes[start]
        guard first < 0x80 || first >= 0xC0 else { return nil }
        let length = first < 0x80 ? 1 : scalarLength(leading: first)
        return UnsafeBufferPointer(rebasing: bytes[start..<start + length])
    }

    /// Moves `cursor` past the value there.
    static func skip(_ bytes: UnsafeBufferPointer<UInt8>, at cursor: inout Int) {
        if let scalar = scalarUTF8(bytes, at: cursor) {
            cursor += scalar.count
            return
        }
        let tag = Tag(rawValue: bytes[cursor])!
        cursor += 1
        switch tag {
        case .null, .falseValue, .trueValue: break
        case .uint, .int, .counter, .timestamp: _ = LEB128.readTrusted(bytes, at: &cursor)
        case .f64: cursor += 8
        case .string, .bytes: _ = readPayload(bytes, at: &cursor)
        case .unknown:
            cursor += 1
            _ = readPayload(bytes, at: &cursor)
        }
    }

    private static func readPayload(_ bytes: UnsafeBufferPointer<UInt8>, at cursor: inout Int) -> UnsafeBufferPointer<UInt8> {
        let length = Int(LEB128.readTrusted(bytes, at: &cursor))
        defer { cursor += length }
        return UnsafeBufferPointer(rebasing: bytes[cursor..<cursor + length])
    }

    /// The length of the UTF-8 scalar whose first byte is `leading`.
    private static func scalarLength(leading: UInt8) -> Int {
        leading >= 0xF0 ? 4 : leading >= 0xE0 ? 3 : 2
    }

    /// Whether `string` is one Unicode scalar: its UTF-8 is exactly the
    /// length its first byte announces (a String's UTF-8 is always valid),
    /// read without decoding scalars, as every typed character of a load
    /// is checked.
    @inline(__always)
    private static func isOneScalar(_ string: String, length: Int) -> Bool {
        guard length > 0 else { return false }
        let utf8 = string.utf8
        let first = utf8[utf8.startIndex]
        return length == (first < 0x80 ? 1 : scalarLength(leading: first))
    }
}

/// An op id as the packed forms (``PackedLeaf``, ``PackedKeyOps``) keep
/// it: its actor index and counter, LEB128.
extension OpId {
    /// The bytes ``appendPacked(to:)`` writes.
    var packedSize: Int { LEB128.unsignedSize(UInt64(actor)) + LEB128.unsignedSize(UInt64(counter)) }

    @inline(__always)
    func appendPacked<Sink: ByteSink>(to out: inout Sink) {
        LEB128.appendUnsigned(UInt64(actor), to: &out)
        LEB128.appendUnsigned(UInt64(counter), to: &out)
    }

    /// Reads an id ``appendPacked(to:)`` wrote at `cursor`, advancing it.
    static func readPacked(_ bytes: UnsafeBufferPointer<UInt8>, at cursor: inout Int) -> OpId {
        let actor = UInt32(truncatingIfNeeded: LEB128.readTrusted(bytes, at: &cursor))
        let counter = UInt32(truncatingIfNeeded: LEB128.readTrusted(bytes, at: &cursor))
        return OpId(counter: counter, actor: actor)
    }
}

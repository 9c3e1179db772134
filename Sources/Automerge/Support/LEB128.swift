/// LEB128 variable-length integers, as Automerge writes and reads them.
///
/// Writers always emit the minimal form. Readers come in two strictness
/// levels because Rust parses different parts of a file with different code:
/// chunk framing, column metadata, chunk headers and the bytes of values use
/// `storage/parse/leb128.rs`, which rejects overlong forms; the contents of
/// RLE, delta and boolean columns go through the `leb128` crate (via hexane),
/// which accepts them. Reading column data strictly would reject files Rust
/// loads.
enum LEB128 {
    /// How strictly a number is parsed.
    enum Mode: Sendable {
        /// Reject overlong forms and more than 64 significant bits
        /// (`storage/parse/leb128.rs`).
        case strict
        /// Accept overlong forms of up to 10 bytes; reject only values that do
        /// not fit in 64 bits (the `leb128` crate used inside column data).
        case lenient
    }

    // MARK: Writing

    /// Appends the minimal unsigned encoding of `value`.
    @inline(__always)
    static func appendUnsigned<Sink: ByteSink>(_ value: UInt64, to out: inout Sink) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// Appends the minimal signed encoding of `value`.
    @inline(__always)
    static func appendSigned<Sink: ByteSink>(_ value: Int64, to out: inout Sink) {
        var v = value
        while true {
            let byte = UInt8(truncatingIfNeeded: v) & 0x7F
            v >>= 7
            let signBitClear = byte & 0x40 == 0
            if (v == 0 && signBitClear) || (v == -1 && !signBitClear) {
                out.append(byte)
                return
            }
            out.append(byte | 0x80)
        }
    }

    /// The number of bytes of the minimal unsigned encoding of `value`.
    static func unsignedSize(_ value: UInt64) -> Int {
        var v = value
        var n = 1
        while v >= 0x80 { v >>= 7; n += 1 }
        return n
    }

    /// The number of bytes of the minimal signed encoding of `value`.
    static func signedSize(_ value: Int64) -> Int {
        var v = value
        var n = 1
        while true {
            let byte = UInt8(truncatingIfNeeded: v) & 0x7F
            v >>= 7
            if (v == 0 && byte & 0x40 == 0) || (v == -1 && byte & 0x40 != 0) { return n }
            n += 1
        }
    }

    // MARK: Reading

    /// Reads an unsigned number at `index`, advancing it past the number.
    /// Never reads outside `bytes`.
    @inline(__always)
    static func readUnsigned(
        _ bytes: ArraySlice<UInt8>, at index: inout Int, mode: Mode, what: @autoclosure () -> String
    ) throws(LoadError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        let end = bytes.endIndex
        while true {
            guard index < end else { throw .truncated(what: what()) }
            let byte = bytes[index]
            index += 1
            switch mode {
            case .lenient:
                // The 10th byte may only hold the top bit.
                if shift == 63 && byte > 1 { throw .leb128TooLarge(what: what()) }
                result |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return result }
                shift += 7
            case .strict:
                result |= UInt64(byte & 0x7F) << shift
                shift += 7
                if byte & 0x80 == 0 {
                    if shift > 64 && byte > 1 { throw .leb128TooLarge(what: what()) }
                    if shift > 7 && byte == 0 { throw .overlongLEB128(what: what()) }
                    return result
                }
                if shift > 64 { throw .leb128TooLarge(what: what()) }
            }
        }
    }

    /// Reads a signed number at `index`, advancing it past the number.
    /// Never reads outside `bytes`.
    @inline(__always)
    static func readSigned(
        _ bytes: ArraySlice<UInt8>, at index: inout Int, mode: Mode, what: @autoclosure () -> String
    ) throws(LoadError) -> Int64 {
        var result: Int64 = 0
        var shift: Int64 = 0
        var previous: UInt8 = 0
        let end = bytes.endIndex
        while true {
            guard index < end else { throw .truncated(what: what()) }
            let byte = bytes[index]
            index += 1
            if mode == .lenient && shift == 63 && byte != 0 && byte != 0x7F {
                throw .leb128TooLarge(what: what())
            }
            result |= Int64(byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0 {
                if mode == .strict {
                    if shift > 64 && byte != 0 && byte != 0x7F { throw .leb128TooLarge(what: what()) }
                    if shift > 7
                        && ((byte == 0 && previous & 0x40 == 0) || (byte == 0x7F && previous & 0x40 != 0)) {
                        throw .overlongLEB128(what: what())
                    }
                }
                if shift < 64 && byte & 0x40 != 0 {
                    result |= -1 << shift
                }
                return result
            }
            if mode == .strict && shift > 64 { throw .leb128TooLarge(what: what()) }
            previous = byte
        }
    }
}

extension LEB128 {
    /// Reads an unsigned number this process wrote itself (the packed forms
    /// of its own structures) at `cursor`, advancing it: no checks, as
    /// such bytes cannot be malformed.
    @inline(__always)
    static func readTrusted(_ bytes: UnsafeBufferPointer<UInt8>, at cursor: inout Int) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = bytes[cursor]
            cursor += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// Reads a signed number this process wrote itself (see ``readTrusted(_:at:)``):
    /// the same bits, sign-extended from the last byte's sign bit.
    @inline(__always)
    static func readTrustedSigned(_ bytes: UnsafeBufferPointer<UInt8>, at cursor: inout Int) -> Int64 {
        let start = cursor
        var result = Int64(bitPattern: readTrusted(bytes, at: &cursor))
        let shift = 7 * (cursor - start)
        if shift < 64 && bytes[cursor - 1] & 0x40 != 0 { result |= -1 << shift }
        return result
    }
}

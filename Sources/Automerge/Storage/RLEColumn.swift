/// Run-length encoded columns (types 1, 2, 3, 5, 6 and groups), in exactly
/// the canonical form Rust writes.
///
/// A column is a sequence of runs, each headed by an sLEB `n`: `n > 0` is one
/// value repeated `n` times, `n < 0` is `|n|` literal values, `n == 0` is
/// followed by a uLEB count of nulls. The encoder is the state machine of
/// Rust's `columnar/encoding/rle.rs` (identical to hexane's): a repeat needs
/// at least two equal values, a lone value is written as a one-value literal,
/// literals never hold two equal neighbours, and a column of nothing but
/// nulls is written as zero bytes (so the column gets omitted).

/// A value that can appear in an RLE column.
protocol RLEValue {
    /// Reads one value (lenient LEB, as hexane does inside column data).
    static func read(_ bytes: ArraySlice<UInt8>, at index: inout Int, column: String) throws(LoadError) -> Self
    static func write(_ value: Self, to out: inout [UInt8])
    /// Equality as the encoder sees it (strings by their bytes).
    static func same(_ a: Self, _ b: Self) -> Bool
    /// Any value: what an encoder holds before its first value, so that its
    /// last value needs no optional (see ``RLEEncoder``).
    static var placeholder: Self { get }
}

extension UInt64: RLEValue {
    @inline(__always)
    static func read(_ bytes: ArraySlice<UInt8>, at index: inout Int, column: String) throws(LoadError) -> UInt64 {
        try LEB128.readUnsigned(bytes, at: &index, mode: .lenient, what: column)
    }
    @inline(__always)
    static func write(_ value: UInt64, to out: inout [UInt8]) { LEB128.appendUnsigned(value, to: &out) }
    @inline(__always)
    static func same(_ a: UInt64, _ b: UInt64) -> Bool { a == b }
    static var placeholder: UInt64 { 0 }
}

extension Int64: RLEValue {
    @inline(__always)
    static func read(_ bytes: ArraySlice<UInt8>, at index: inout Int, column: String) throws(LoadError) -> Int64 {
        try LEB128.readSigned(bytes, at: &index, mode: .lenient, what: column)
    }
    @inline(__always)
    static func write(_ value: Int64, to out: inout [UInt8]) { LEB128.appendSigned(value, to: &out) }
    @inline(__always)
    static func same(_ a: Int64, _ b: Int64) -> Bool { a == b }
    static var placeholder: Int64 { 0 }
}

extension String: RLEValue {
    static func read(_ bytes: ArraySlice<UInt8>, at index: inout Int, column: String) throws(LoadError) -> String {
        let length = try LEB128.readUnsigned(bytes, at: &index, mode: .lenient, what: column)
        let remaining = bytes.endIndex - index
        guard length <= UInt64(remaining) else {
            throw .lengthPastEnd(what: column, length: length, remaining: remaining)
        }
        let end = index + Int(length)
        defer { index = end }
        guard let string = UTF8Text.decode(bytes[index..<end]) else { throw .invalidUTF8(what: column) }
        return string
    }
    static func write(_ value: String, to out: inout [UInt8]) {
        LEB128.appendUnsigned(UInt64(value.utf8.count), to: &out)
        out.appendUTF8(of: value)
    }
    static func same(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right in
                UnsafeRawBufferPointer(left).hasSameBytes(as: UnsafeRawBufferPointer(right))
            }
        }
        return (fast ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }
    static var placeholder: String { "" }
}

/// How a column's bytes are to be checked while decoding.
struct ColumnCheck: Sendable {
    /// Reject anything a canonical encoder would not write (Rust checks this
    /// for document op columns and the time, message and extra-metadata
    /// change columns).
    var canonical: Bool
    /// Whether nulls are allowed at all (only enforced in canonical mode;
    /// otherwise the consumer rejects a null where it needs a value).
    var nullable: Bool
    /// The most items the column may decode to, so that a run claiming 2^60
    /// items fails instead of allocating.
    var limit: Int

    /// Throws unless `count` more items fit beside the `decoded` ones. Written
    /// without adding, because a hostile run length may be close to 2^64.
    func admit(_ count: UInt64, after decoded: Int, column: String) throws(LoadError) {
        let room = UInt64(max(limit - decoded, 0))
        guard count <= room else { throw .tooManyRows(column: column, limit: limit) }
    }
}

enum RLEColumn {
    /// Decodes a whole column into one optional per item.
    static func decode<V: RLEValue>(
        _ data: ArraySlice<UInt8>, as _: V.Type, column: String, check: ColumnCheck
    ) throws(LoadError) -> [V?] {
        var reader = RLEReader<V>(data, column: column, check: check)
        var values = [V?]()
        while try !reader.isAtEnd() { values.append(try reader.next()) }
        return values
    }
}

/// The canonical RLE encoder.
///
/// Saving calls it a dozen times per op, so the common cases (extending a
/// run of equal values or of nulls) are inlined into the caller and cost a
/// compare and an increment: the last value is not optional (``mode`` says
/// whether it means anything) and counts cannot overflow (a column holds
/// fewer than 2^63 items). A literal run's values are written as they come
/// into a byte buffer rather than kept as values to be written when the
/// run ends.
struct RLEEncoder<V: RLEValue> {
    private enum Mode { case empty, initialNulls, nulls, lone, run, literal }

    private(set) var output: [UInt8] = []
    private var mode: Mode = .empty
    private var nullCount = 0
    private var runCount = 0
    /// The last value appended (lone, run, or the pending end of a
    /// literal); meaningless in the empty and null modes.
    private var current: V = .placeholder
    /// The encoded values of a literal run before `current`, and their number.
    private var literalBytes: [UInt8] = []
    private var literalCount = 0

    init() {}

    @inline(__always)
    mutating func append(_ value: V?) {
        if let value { appendValue(value) } else { appendNull() }
    }

    @inline(__always)
    mutating func appendNull() {
        if mode == .nulls || mode == .initialNulls {
            nullCount &+= 1
        } else {
            appendNullSlowly()
        }
    }

    private mutating func appendNullSlowly() {
        switch mode {
        case .empty: mode = .initialNulls; nullCount = 1
        case .initialNulls, .nulls: nullCount += 1
        case .lone, .literal:
            flushLiteral(ending: current)
            mode = .nulls; nullCount = 1
        case .run:
            flushRun()
            mode = .nulls; nullCount = 1
        }
    }

    @inline(__always)
    mutating func appendValue(_ value: V) {
        if mode == .run && V.same(current, value) {
            runCount &+= 1
        } else {
            appendValueSlowly(value)
        }
    }

    private mutating func appendValueSlowly(_ value: V) {
        switch mode {
        case .empty:
            mode = .lone
        case .initialNulls, .nulls:
            flushNulls()
            mode = .lone
        case .lone:
            if V.same(current, value) {
                mode = .run; runCount = 2
            } else {
                addToLiteral(current)
                mode = .literal
            }
        case .run:
            if V.same(current, value) {
                runCount += 1
                return
            }
            flushRun()
            mode = .lone
        case .literal:
            if V.same(current, value) {
                // The literal ends before `current`, which starts a repeat.
                flushLiteralBuffer()
                mode = .run; runCount = 2
            } else {
                addToLiteral(current)
            }
        }
        current = value
    }

    /// Appends `value` `count` times, as that many ``appendValue(_:)``.
    mutating func appendValue(_ value: V, count: Int) {
        guard count > 0 else { return }
        appendValue(value)
        guard count > 1 else { return }
        appendValue(value)  // a run of `value` from here, whatever came before
        runCount &+= count - 2
    }

    /// Appends `count` nulls, as that many ``appendNull()``.
    mutating func appendNulls(count: Int) {
        guard count > 0 else { return }
        appendNull()
        nullCount &+= count - 1
    }

    // MARK: Joining

    /// Continues this column with the values `other` encoded (starting
    /// empty), giving exactly the bytes of one encoder fed both in turn:
    /// a save encodes the two halves of its rows on two cores and joins
    /// them. `adjustFirstValue` rewrites `other`'s first non-null value
    /// (a delta column's second half was encoded from 0, not from the
    /// first half's last value).
    ///
    /// `other`'s first runs are read back from its bytes and appended here
    /// value by value, until the join can no longer change where its runs
    /// end: two runs, and one more after the rewritten value's. Then the
    /// pending run here is written out, the rest of `other`'s bytes are
    /// taken as they are, and its pending run becomes this one's.
    mutating func append(contentsOf other: RLEEncoder, adjustFirstValue: ((V) -> V)? = nil) {
        var adjust = adjustFirstValue
        var adjustedInRun: Int? = nil
        var runs = 0
        func feed(_ value: V) {
            if let rewrite = adjust {
                adjust = nil
                adjustedInRun = runs
                appendValue(rewrite(value))
            } else {
                appendValue(value)
            }
        }
        let bytes = other.output[...]
        var index = bytes.startIndex
        do {
            while index < bytes.endIndex {
                let settled = runs >= 2 && adjust == nil && adjustedInRun.map { runs > $0 + 1 } ?? true
                if settled { break }
                let header = try LEB128.readSigned(bytes, at: &index, mode: .lenient, what: "own run")
                if header > 0 {
                    let value = try V.read(bytes, at: &index, column: "own run")
                    feed(value)
                    appendValue(value, count: Int(header) - 1)
                } else if header < 0 {
                    for _ in 0..<Int(-header) { feed(try V.read(bytes, at: &index, column: "own run")) }
                } else {
                    appendNulls(count: Int(try LEB128.readUnsigned(bytes, at: &index, mode: .lenient, what: "own run")))
                }
                runs += 1
            }
            if index < bytes.endIndex {
                flushPending()
                output.append(contentsOf: bytes[index...])
                mode = other.mode
                nullCount = other.nullCount
                runCount = other.runCount
                current = other.current
                literalBytes = other.literalBytes
                literalCount = other.literalCount
                return
            }
            // All of `other`'s bytes were fed: feed its pending run too.
            switch other.mode {
            case .empty: break
            case .initialNulls, .nulls: appendNulls(count: other.nullCount)
            case .lone: feed(other.current)
            case .run:
                feed(other.current)
                appendValue(other.current, count: other.runCount - 1)
            case .literal:
                let literal = other.literalBytes[...]
                var position = literal.startIndex
                for _ in 0..<other.literalCount { feed(try V.read(literal, at: &position, column: "own run")) }
                feed(other.current)
            }
        } catch {
            preconditionFailure("an encoder's own bytes did not read back: \(error)")
        }
    }

    /// Writes out the pending run, as the next differing value would.
    private mutating func flushPending() {
        switch mode {
        case .empty: break
        case .initialNulls, .nulls: flushNulls()
        case .lone, .literal: flushLiteral(ending: current)
        case .run: flushRun()
        }
        mode = .empty
    }

    /// Empties the encoder for another column, keeping its buffers' memory
    /// (call it once the bytes ``finish()`` returned are no longer held, or
    /// the buffer is copied instead).
    mutating func reset() {
        // Skipped when empty: removeAll's general path costs even then, and
        // a change's writer resets some thirty buffers, most of them empty.
        if !output.isEmpty { output.removeAll(keepingCapacity: true) }
        if !literalBytes.isEmpty { literalBytes.removeAll(keepingCapacity: true) }
        mode = .empty
        nullCount = 0
        runCount = 0
        literalCount = 0
        current = .placeholder
    }

    /// Flushes the pending state and returns the column bytes (empty if
    /// every value was null).
    mutating func finish() -> [UInt8] {
        switch mode {
        case .empty, .initialNulls: break
        case .nulls: flushNulls()
        case .lone, .literal: flushLiteral(ending: current)
        case .run: flushRun()
        }
        mode = .empty
        current = .placeholder
        return output
    }

    private mutating func addToLiteral(_ value: V) {
        V.write(value, to: &literalBytes)
        literalCount += 1
    }

    private mutating func flushNulls() {
        LEB128.appendSigned(0, to: &output)
        LEB128.appendUnsigned(UInt64(nullCount), to: &output)
        nullCount = 0
    }

    private mutating func flushRun() {
        LEB128.appendSigned(Int64(runCount), to: &output)
        V.write(current, to: &output)
        runCount = 0
    }

    private mutating func flushLiteral(ending last: V) {
        guard literalCount > 0 else {
            // A lone value: written straight after its count, not through
            // the literal buffer (a rebuilt change of one op finishes a
            // dozen columns of one value each).
            LEB128.appendSigned(-1, to: &output)
            V.write(last, to: &output)
            return
        }
        addToLiteral(last)
        flushLiteralBuffer()
    }

    private mutating func flushLiteralBuffer() {
        LEB128.appendSigned(-Int64(literalCount), to: &output)
        output.append(contentsOf: literalBytes)
        literalBytes.removeAll(keepingCapacity: true)
        literalCount = 0
    }
}

/// Encodes a sequence of optional values as one RLE column.
extension RLEColumn {
    static func encode<V: RLEValue, S: Sequence>(_ values: S) -> [UInt8] where S.Element == V? {
        var encoder = RLEEncoder<V>()
        for value in values { encoder.append(value) }
        return encoder.finish()
    }
}

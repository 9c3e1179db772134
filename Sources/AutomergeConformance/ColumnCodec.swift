/// Minimal column codecs for building and corrupting vectors: RLE of
/// integers (uLEB or sLEB values, nullable), delta columns and boolean
/// columns, written in the canonical form the digest describes (or, on
/// request, in a deliberately non-canonical one).
public enum ColumnCodec {
    /// Decodes an RLE column of integers; nil if malformed.
    public static func decodeRLE(_ bytes: [UInt8], signed: Bool) -> [Int64?]? {
        var cursor = ByteCursor(bytes)
        var values: [Int64?] = []
        func value() -> Int64? {
            if signed { return cursor.sleb() }
            return cursor.uleb().map { Int64(bitPattern: $0) }
        }
        while !cursor.isAtEnd {
            guard let count = cursor.sleb() else { return nil }
            if count > 0 {
                guard count < 1 << 24, let v = value() else { return nil }
                values += Array(repeating: v, count: Int(count))
            } else if count < 0 {
                guard count > -(1 << 24) else { return nil }
                for _ in 0..<Int(-count) {
                    guard let v = value() else { return nil }
                    values.append(v)
                }
            } else {
                guard let nulls = cursor.uleb(), nulls < 1 << 24 else { return nil }
                values += Array(repeating: nil, count: Int(nulls))
            }
        }
        return values
    }

    /// The run headers of an RLE column: n > 0 for a repeat run of n, n < 0
    /// for a literal run of -n values, 0 for a null run; nil if malformed.
    public static func runHeaders(_ bytes: [UInt8], signed: Bool) -> [Int64]? {
        var cursor = ByteCursor(bytes)
        var headers: [Int64] = []
        while !cursor.isAtEnd {
            guard let count = cursor.sleb() else { return nil }
            headers.append(count)
            let values = count > 0 ? 1 : count < 0 ? Int(clamping: -count) : 0
            if count == 0 { guard cursor.uleb() != nil else { return nil } }
            for _ in 0..<min(values, bytes.count) {
                guard (signed ? cursor.sleb().map { _ in 0 } : cursor.uleb().map { _ in 0 }) != nil else { return nil }
            }
        }
        return headers
    }

    /// Encodes integers canonically: repeats of two or more, literals
    /// otherwise, null runs; a lone value at the end is a one-item literal.
    public static func encodeRLE(_ values: [Int64?], signed: Bool) -> [UInt8] {
        func encodeValue(_ v: Int64) -> [UInt8] { signed ? Bytes.sleb(v) : Bytes.uleb(UInt64(bitPattern: v)) }
        var out: [UInt8] = []
        var literal: [Int64] = []
        func flushLiteral() {
            guard !literal.isEmpty else { return }
            out += Bytes.sleb(-Int64(literal.count))
            for v in literal { out += encodeValue(v) }
            literal = []
        }
        var index = 0
        while index < values.count {
            var end = index + 1
            while end < values.count && values[end] == values[index] { end += 1 }
            let run = end - index
            if let v = values[index] {
                if run >= 2 {
                    flushLiteral()
                    out += Bytes.sleb(Int64(run)) + encodeValue(v)
                } else {
                    literal.append(v)
                }
            } else {
                flushLiteral()
                out += [0] + Bytes.uleb(UInt64(run))
            }
            index = end
        }
        flushLiteral()
        return out
    }

    /// Every value as its own repeat run of one: valid to a lenient reader,
    /// rejected by Rust's canonical-form check.
    public static func encodeRLENonCanonical(_ values: [Int64], signed: Bool) -> [UInt8] {
        var out: [UInt8] = []
        for v in values { out += [1] + (signed ? Bytes.sleb(v) : Bytes.uleb(UInt64(bitPattern: v))) }
        return out
    }

    public static func decodeDelta(_ bytes: [UInt8]) -> [Int64?]? {
        guard let deltas = decodeRLE(bytes, signed: true) else { return nil }
        var current: Int64 = 0
        return deltas.map { delta in
            guard let delta else { return nil }
            current &+= delta
            return current
        }
    }

    public static func encodeDelta(_ values: [Int64?]) -> [UInt8] {
        var previous: Int64 = 0
        let deltas: [Int64?] = values.map { value in
            guard let value else { return nil }
            defer { previous = value }
            return value &- previous
        }
        return encodeRLE(deltas, signed: true)
    }

    public static func decodeBoolean(_ bytes: [UInt8]) -> [Bool]? {
        var cursor = ByteCursor(bytes)
        var values: [Bool] = []
        var current = false
        while !cursor.isAtEnd {
            guard let count = cursor.uleb(), count < 1 << 24 else { return nil }
            values += Array(repeating: current, count: Int(count))
            current.toggle()
        }
        return values
    }

    public static func encodeBoolean(_ values: [Bool]) -> [UInt8] {
        var out: [UInt8] = []
        var current = false
        var index = 0
        while index < values.count {
            var count = 0
            while index < values.count && values[index] == current { count += 1; index += 1 }
            out += Bytes.uleb(UInt64(count))
            current.toggle()
        }
        return out
    }
}

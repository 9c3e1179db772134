/// Value columns: an RLE column of uLEB metadata (type 6) and a raw column of
/// bytes (type 7) with the same id.
///
/// Each metadata entry is `length << 4 | typeCode` (uLEB, although the spec
/// says LEB), and `length` bytes of the raw column belong to that row,
/// whatever the type: Rust addresses the raw column by the running sum of
/// lengths. Integers inside the raw bytes are parsed strictly and must fill
/// their length exactly; strings must be valid UTF-8; type codes 10...15 are
/// kept verbatim.
enum ValueColumn {
    enum TypeCode {
        static let null: UInt64 = 0
        static let `false`: UInt64 = 1
        static let `true`: UInt64 = 2
        static let uint: UInt64 = 3
        static let int: UInt64 = 4
        static let f64: UInt64 = 5
        static let string: UInt64 = 6
        static let bytes: UInt64 = 7
        static let counter: UInt64 = 8
        static let timestamp: UInt64 = 9
    }

    // MARK: Decoding

    /// The value with the given type code and raw bytes.
    static func primitive(typeCode: UInt64, bytes: ArraySlice<UInt8>, column: String, row: Int) throws(LoadError) -> Primitive {
        func invalid(_ reason: String) -> LoadError { .invalidValue(column: column, row: row, reason: reason) }
        func wholeSigned() throws(LoadError) -> Int64 {
            var index = bytes.startIndex
            let value = try LEB128.readSigned(bytes, at: &index, mode: .strict, what: column)
            guard index == bytes.endIndex else { throw invalid("extra bytes") }
            return value
        }
        switch typeCode {
        case TypeCode.null: return .null
        case TypeCode.false: return .bool(false)
        case TypeCode.true: return .bool(true)
        case TypeCode.uint:
            var index = bytes.startIndex
            let value = try LEB128.readUnsigned(bytes, at: &index, mode: .strict, what: column)
            guard index == bytes.endIndex else { throw invalid("extra bytes") }
            return .uint(value)
        case TypeCode.int: return .int(try wholeSigned())
        case TypeCode.f64:
            guard bytes.count == 8 else { throw invalid("float should have length 8, had \(bytes.count)") }
            var bits: UInt64 = 0
            for (shift, byte) in bytes.enumerated() { bits |= UInt64(byte) << (8 * UInt64(shift)) }
            return .f64(Double(bitPattern: bits))
        case TypeCode.string:
            guard let string = UTF8Text.decode(bytes) else { throw .invalidUTF8(what: column) }
            return .string(string)
        case TypeCode.bytes: return .bytes(Array(bytes))
        case TypeCode.counter: return .counter(try wholeSigned())
        case TypeCode.timestamp: return .timestamp(try wholeSigned())
        default: return .unknown(typeCode: UInt8(typeCode), bytes: Array(bytes))
        }
    }

    /// Checks a value's bytes exactly as ``primitive(typeCode:bytes:column:row:)``
    /// does, without making the value: no string or array is built.
    static func validate(typeCode: UInt64, bytes: ArraySlice<UInt8>, column: String, row: Int) throws(LoadError) {
        switch typeCode {
        case TypeCode.string:
            guard UTF8Text.isValid(bytes) else { throw .invalidUTF8(what: column) }
        case TypeCode.null, TypeCode.false, TypeCode.true, TypeCode.bytes: return
        case TypeCode.uint, TypeCode.int, TypeCode.f64, TypeCode.counter, TypeCode.timestamp:
            _ = try primitive(typeCode: typeCode, bytes: bytes, column: column, row: row)  // numbers: nothing allocated
        default: return  // unknown types are kept verbatim
        }
    }

    // MARK: Encoding

    /// The metadata entry of a value.
    static func metadata(of value: Primitive) -> UInt64 {
        switch value {
        case .null: return TypeCode.null
        case .bool(let b): return b ? TypeCode.true : TypeCode.false
        case .uint(let v): return UInt64(LEB128.unsignedSize(v)) << 4 | TypeCode.uint
        case .int(let v): return UInt64(LEB128.signedSize(v)) << 4 | TypeCode.int
        case .f64: return 8 << 4 | TypeCode.f64
        case .string(let s): return UInt64(s.utf8.count) << 4 | TypeCode.string
        case .bytes(let b): return UInt64(b.count) << 4 | TypeCode.bytes
        case .counter(let v): return UInt64(LEB128.signedSize(v)) << 4 | TypeCode.counter
        case .timestamp(let v): return UInt64(LEB128.signedSize(v)) << 4 | TypeCode.timestamp
        case .unknown(let code, let bytes): return UInt64(bytes.count) << 4 | UInt64(code & 0xF)
        }
    }

    /// Appends a value's raw bytes.
    static func appendRaw(_ value: Primitive, to out: inout [UInt8]) {
        switch value {
        case .null, .bool: break
        case .uint(let v): LEB128.appendUnsigned(v, to: &out)
        case .int(let v), .counter(let v), .timestamp(let v): LEB128.appendSigned(v, to: &out)
        case .f64(let d):
            let bits = d.bitPattern
            for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        case .string(let s): out.appendUTF8(of: s)
        case .bytes(let b): out.append(contentsOf: b)
        case .unknown(_, let bytes): out.append(contentsOf: bytes)
        }
    }

    /// Appends a value's metadata entry and raw bytes. A string, most
    /// values of a text-heavy save, is read once for both (its length
    /// through `metadata(of:)` and its bytes through `appendRaw` each went
    /// through the string again).
    @inline(__always)
    static func append(_ value: Primitive, metadata meta: inout RLEEncoder<UInt64>, raw: inout [UInt8]) {
        if case .string(let string) = value {
            withUTF8Bytes(of: string) { bytes in
                meta.appendValue(UInt64(bytes.count) << 4 | TypeCode.string)
                if bytes.count == 1 { raw.append(bytes[0]) } else { raw.append(contentsOf: bytes) }
            }
        } else {
            meta.appendValue(metadata(of: value))
            appendRaw(value, to: &raw)
        }
    }

    /// Encodes values as (metadata column, raw column).
    static func encode<S: Sequence>(_ values: S) -> (meta: [UInt8], raw: [UInt8]) where S.Element == Primitive {
        var meta = RLEEncoder<UInt64>()
        var raw = [UInt8]()
        for value in values { append(value, metadata: &meta, raw: &raw) }
        return (meta.finish(), raw)
    }

    // MARK: Extra bytes of document change rows

    /// Decodes the extra-bytes column of document change rows: the raw bytes
    /// of each row, whatever its type code.
    static func decodeExtraBytes(
        meta: ArraySlice<UInt8>?, raw: ArraySlice<UInt8>?, rows: Int, column: String, check: ColumnCheck
    ) throws(LoadError) -> [[UInt8]] {
        guard let meta else {
            if let raw, !raw.isEmpty {
                throw .columnLengthMismatch(column: column + " raw", expected: 0, actual: raw.count)
            }
            return Array(repeating: [], count: rows)
        }
        let metas = try RLEColumn.decode(meta, as: UInt64.self, column: column + " meta", check: check)
        guard metas.count == rows else {
            throw .columnLengthMismatch(column: column + " meta", expected: rows, actual: metas.count)
        }
        let rawBytes = raw ?? [][...]
        var position = rawBytes.startIndex
        var result = [[UInt8]]()
        result.reserveCapacity(rows)
        for (row, entry) in metas.enumerated() {
            guard let entry else { throw .unexpectedNull(column: column + " meta", row: row) }
            let length = entry >> 4
            let remaining = rawBytes.endIndex - position
            guard length <= UInt64(remaining) else {
                throw .lengthPastEnd(what: column + " raw", length: length, remaining: remaining)
            }
            let end = position + Int(length)
            result.append(Array(rawBytes[position..<end]))
            position = end
        }
        guard position == rawBytes.endIndex else {
            throw .columnLengthMismatch(
                column: column + " raw", expected: position - rawBytes.startIndex, actual: rawBytes.count)
        }
        return result
    }
}

/// Reads a value column (metadata and raw bytes) one value at a time.
struct ValueReader {
    /// Nil when the metadata column is absent: every value is null.
    private var meta: RLEReader<UInt64>?
    /// The raw column (empty when absent).
    let raw: ArraySlice<UInt8>
    private var position: Int
    private let column: String

    init(meta: ArraySlice<UInt8>?, raw: ArraySlice<UInt8>?, column: String, check: ColumnCheck) throws(LoadError) {
        if meta == nil, let raw, !raw.isEmpty {
            throw .columnLengthMismatch(column: column + " raw", expected: 0, actual: raw.count)
        }
        self.meta = meta.map { RLEReader($0, column: column + " meta", check: check) }
        self.raw = raw ?? [][...]
        self.position = self.raw.startIndex
        self.column = column
    }

    /// The value of `row` (of `rows`, for the error when the column is short).
    mutating func next(row: Int, rows: Int) throws(LoadError) -> Primitive {
        let (typeCode, range) = try nextRaw(row: row, rows: rows)
        let start = raw.startIndex + range.lowerBound
        return try ValueColumn.primitive(typeCode: UInt64(typeCode), bytes: raw[start..<start + range.count], column: column, row: row)
    }

    /// The type code of `row`'s value and where its bytes are in ``raw``
    /// (offsets from its start index), checked as ``next(row:rows:)``
    /// checks them. A null or boolean keeps no bytes: the value it decodes
    /// to drops a stray length, so its re-encoding has none either.
    mutating func nextRaw(row: Int, rows: Int) throws(LoadError) -> (typeCode: UInt8, range: Range<Int>) {
        // Optional chaining reads `meta` in place; `meta!` copied it per row.
        guard let atEnd = try meta?.isAtEnd() else { return (UInt8(ValueColumn.TypeCode.null), 0..<0) }
        if atEnd { throw .columnLengthMismatch(column: column + " meta", expected: rows, actual: row) }
        guard let entry = try meta?.next() ?? nil else { throw .unexpectedNull(column: column + " meta", row: row) }
        let length = entry >> 4
        let remaining = raw.endIndex - position
        guard length <= UInt64(remaining) else {
            throw .lengthPastEnd(what: column + " raw", length: length, remaining: remaining)
        }
        // Rows hold a value's offset and length in 32 bits (only an uncompressed column of a 4 GB file could say more).
        let start = position, end = position + Int(length)
        guard end - raw.startIndex <= Int(UInt32.max) else {
            throw .invalidValue(column: column, row: row, reason: "ends past 4 GB of values")
        }
        position = end
        let typeCode = entry & 0xF
        try ValueColumn.validate(typeCode: typeCode, bytes: raw[start..<end], column: column, row: row)
        let offset = start - raw.startIndex
        return (UInt8(typeCode), typeCode <= ValueColumn.TypeCode.true ? offset..<offset : offset..<end - raw.startIndex)
    }

    /// Checks that both columns ended with the last row.
    mutating func finish(rows: Int) throws(LoadError) {
        if meta != nil {
            let total = try meta!.count()
            if total != rows { throw .columnLengthMismatch(column: column + " meta", expected: rows, actual: total) }
        }
        guard position == raw.endIndex else {
            throw .columnLengthMismatch(column: column + " raw", expected: position - raw.startIndex, actual: raw.count)
        }
    }
}

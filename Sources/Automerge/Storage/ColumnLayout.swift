/// Column specifications and the column metadata block that precedes column
/// data in change and document chunks.

/// The type of a column (the low three bits of its specification).
enum ColumnType: UInt32, Sendable {
    case group = 0, actor = 1, uleb = 2, delta = 3, boolean = 4, string = 5, valueMetadata = 6, value = 7

    /// How a column of this type is deflated. Rust's flate2 uses zlib's
    /// default, level 6, for every column.
    ///
    /// ``DeflateEffort/fast`` (saves) trades a little size for time:
    /// - Text (strings, raw values) gets level 5: level 6's longer match
    ///   chains make text hardly smaller for much more time.
    /// - Delta, group and boolean columns get Huffman codes alone: after
    ///   delta and run-length coding their bytes rarely repeat, so looking
    ///   for repeats finds almost nothing and costs most of the time.
    /// - Actor, uLEB and value-metadata columns get level 4: they do
    ///   repeat, and a deeper search finds little more.
    ///
    /// ``DeflateEffort/small`` (whole documents sent by sync) must come out
    /// no larger than Rust's level 6 although it is cut into pieces where
    /// Rust writes one stream: text at level 8 and everything else at 7
    /// does, for a modest cost in time. The sizes and times behind these
    /// choices: docs/performance.md, "Compression".
    func deflateSetting(_ effort: DeflateEffort) -> Deflate.Setting {
        switch (effort, self) {
        case (.fast, .string), (.fast, .value): return .level(5)
        case (.fast, .delta), (.fast, .group), (.fast, .boolean): return .huffmanOnly
        case (.fast, .actor), (.fast, .uleb), (.fast, .valueMetadata): return .level(4)
        case (.small, .string), (.small, .value): return .level(8)
        case (.small, _): return .level(7)
        }
    }
}

/// How hard a document chunk's columns are deflated (see ``ColumnType/deflateSetting(_:)``).
enum DeflateEffort: Sendable {
    /// For saves: a little larger than Rust's, in half the time.
    case fast
    /// For whole documents on the wire: no larger than Rust's.
    case small
}

/// A column specification: `id << 4 | deflate << 3 | type`.
struct ColumnSpec: Hashable, Comparable, Sendable, CustomStringConvertible {
    let raw: UInt32

    init(raw: UInt32) { self.raw = raw }

    init(id: UInt32, type: ColumnType, deflate: Bool = false) {
        raw = id << 4 | (deflate ? 8 : 0) | type.rawValue
    }

    var id: UInt32 { raw >> 4 }
    var type: ColumnType { ColumnType(rawValue: raw & 7)! }
    var deflate: Bool { raw & 8 != 0 }
    /// The specification with the deflate bit cleared; columns are sorted by it.
    var normalized: ColumnSpec { ColumnSpec(raw: raw & ~8) }
    var deflated: ColumnSpec { ColumnSpec(raw: raw | 8) }

    static func < (lhs: ColumnSpec, rhs: ColumnSpec) -> Bool { lhs.raw < rhs.raw }
    var description: String { "\(raw)" }

    // Op columns (change and document chunks).
    static let objActor = ColumnSpec(id: 0, type: .actor)          // 1
    static let objCounter = ColumnSpec(id: 0, type: .uleb)         // 2
    static let keyActor = ColumnSpec(id: 1, type: .actor)          // 17
    static let keyCounter = ColumnSpec(id: 1, type: .delta)        // 19
    static let keyString = ColumnSpec(id: 1, type: .string)        // 21
    static let idActor = ColumnSpec(id: 2, type: .actor)           // 33
    static let idCounter = ColumnSpec(id: 2, type: .delta)         // 35
    static let insert = ColumnSpec(id: 3, type: .boolean)          // 52
    static let action = ColumnSpec(id: 4, type: .uleb)             // 66
    static let valueMeta = ColumnSpec(id: 5, type: .valueMetadata) // 86
    static let value = ColumnSpec(id: 5, type: .value)             // 87
    static let predGroup = ColumnSpec(id: 7, type: .group)         // 112
    static let predActor = ColumnSpec(id: 7, type: .actor)         // 113
    static let predCounter = ColumnSpec(id: 7, type: .delta)       // 115
    static let succGroup = ColumnSpec(id: 8, type: .group)         // 128
    static let succActor = ColumnSpec(id: 8, type: .actor)         // 129
    static let succCounter = ColumnSpec(id: 8, type: .delta)       // 131
    static let expand = ColumnSpec(id: 9, type: .boolean)          // 148
    static let markName = ColumnSpec(id: 10, type: .string)        // 165

    // Change columns of a document chunk.
    static let changeActor = ColumnSpec(id: 0, type: .actor)       // 1
    static let changeSeq = ColumnSpec(id: 0, type: .delta)         // 3
    static let changeMaxOp = ColumnSpec(id: 1, type: .delta)       // 19
    static let changeTime = ColumnSpec(id: 2, type: .delta)        // 35
    static let changeMessage = ColumnSpec(id: 3, type: .string)    // 53
    static let changeDepsGroup = ColumnSpec(id: 4, type: .group)   // 64
    static let changeDeps = ColumnSpec(id: 4, type: .delta)        // 67
    static let changeExtraMeta = ColumnSpec(id: 5, type: .valueMetadata) // 86
    static let changeExtra = ColumnSpec(id: 5, type: .value)       // 87
}

/// The parsed metadata block of one set of columns: each column's spec and
/// stored length, in stored order.
struct ColumnLayout: Sendable {
    var columns: [(spec: ColumnSpec, length: Int)]

    /// Reads a metadata block (uLEB count, then spec/length pairs) and checks
    /// what Rust checks: specs fit in 32 bits, sorted by spec with the
    /// deflate bit masked, no duplicates, every raw value column right after
    /// its metadata column, and lengths that could fit in the chunk.
    static func read(_ reader: inout ByteReader, section: String) throws(LoadError) -> ColumnLayout {
        let count = try reader.readCount("\(section) column count", minimumItemSize: 2)
        var columns = [(spec: ColumnSpec, length: Int)]()
        columns.reserveCapacity(count)
        var total: UInt64 = 0
        for _ in 0..<count {
            let spec = ColumnSpec(raw: try reader.readUnsigned32("\(section) column spec"))
            let length = try reader.readUnsigned("\(section) column length")
            let sum = total.addingReportingOverflow(length)
            // No column can be longer than the whole chunk.
            guard !sum.overflow, sum.partialValue <= UInt64(reader.bytes.count) else {
                throw .lengthPastEnd(what: "\(section) column data", length: length, remaining: reader.remaining)
            }
            total = sum.partialValue
            if let previous = columns.last?.spec {
                if spec.normalized < previous.normalized { throw .columnsOutOfOrder(section: section) }
                if spec.normalized == previous.normalized {
                    throw .duplicateColumn(section: section, spec: spec.normalized.raw)
                }
            }
            if spec.type == .value {
                guard let previous = columns.last?.spec, previous.type == .valueMetadata, previous.id == spec.id else {
                    throw .loneValueColumn(section: section, spec: spec.raw)
                }
            }
            columns.append((spec, Int(length)))
        }
        return ColumnLayout(columns: columns)
    }

    /// Writes a metadata block.
    static func write(_ columns: [(spec: ColumnSpec, length: Int)], to out: inout [UInt8]) {
        LEB128.appendUnsigned(UInt64(columns.count), to: &out)
        for column in columns {
            LEB128.appendUnsigned(UInt64(column.spec.raw), to: &out)
            LEB128.appendUnsigned(UInt64(column.length), to: &out)
        }
    }
}

/// The data of a set of columns, looked up by specification.
///
/// Columns this implementation does not know stay in the set but are never
/// read, so they are dropped on re-encoding (as Rust drops them). A column
/// stored with zero bytes is treated as absent, as Rust treats it.
struct ColumnSet: Sendable {
    /// The non-empty columns, sorted by normalized spec: a chunk holds a
    /// dozen or so, and a search of a sorted array costs a small
    /// document's load less than hashing into a dictionary it allocates.
    private var columns: [(spec: ColumnSpec, bytes: ArraySlice<UInt8>)] = []

    /// Splits `bytes` (the column data, already inflated) by `layout`, whose
    /// specs are sorted and unique once normalized (``ColumnLayout/read(_:section:)``
    /// checks that).
    init(layout: [(spec: ColumnSpec, bytes: ArraySlice<UInt8>)]) {
        columns.reserveCapacity(layout.count)
        for column in layout where !column.bytes.isEmpty {
            assert(columns.last.map { $0.spec < column.spec.normalized } ?? true, "columns out of order")
            columns.append((column.spec.normalized, column.bytes))
        }
    }

    subscript(spec: ColumnSpec) -> ArraySlice<UInt8>? {
        var low = 0, high = columns.count
        while low < high {
            let middle = (low + high) / 2
            if columns[middle].spec < spec { low = middle + 1 } else { high = middle }
        }
        return low < columns.count && columns[low].spec == spec ? columns[low].bytes : nil
    }

    /// The bytes of all the columns together.
    var byteCount: Int { columns.reduce(0) { $0 + $1.bytes.count } }

    /// Encoded columns in spec order, with empty ones left out, ready for
    /// ``ColumnLayout/write(_:to:)``.
    static func nonEmpty(_ columns: [(ColumnSpec, [UInt8])]) -> [(spec: ColumnSpec, bytes: [UInt8])] {
        var result = columns.compactMap { $0.1.isEmpty ? nil : (spec: $0.0, bytes: $0.1) }
        result.sort { $0.spec < $1.spec }
        return result
    }
}

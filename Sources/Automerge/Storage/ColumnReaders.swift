/// Column decoders that yield one item at a time.
///
/// Decoding a document's op columns into one array per column and then
/// zipping them into rows wrote and read every item twice and held a dozen
/// row-sized arrays at once (most of a load's peak memory, which the
/// allocator then kept). The op decoder instead pulls each row's items from
/// these readers. They apply exactly the checks of the whole-column
/// decoders, in the same order within a column, which are written on top
/// of them.

/// A column read one item at a time.
protocol ColumnReader {
    associatedtype Item
    /// Whether every item has been read.
    mutating func isAtEnd() throws(LoadError) -> Bool
    /// The next item. Only valid when not ``isAtEnd()``.
    mutating func next() throws(LoadError) -> Item
    /// Items returned so far.
    var produced: Int { get }
}

extension ColumnReader {
    /// Reads the rest of the column and returns how many items it held.
    mutating func count() throws(LoadError) -> Int {
        while try !isAtEnd() { _ = try next() }
        return produced
    }

    /// Reads the column until it meets `value`; whether it did.
    mutating func contains<V: Equatable>(_ value: V) throws(LoadError) -> Bool where Item == V? {
        while try !isAtEnd() {
            if try next() == value { return true }
        }
        return false
    }
}

/// A column of runs, each announced by a header that ``startRun()`` reads.
protocol RunReader: ColumnReader {
    /// Items left in the current run.
    var remaining: UInt64 { get }
    /// Whether every run's header has been read.
    var isPastLastRun: Bool { get }
    /// Reads the next run's header; only valid when not ``isPastLastRun``.
    mutating func startRun() throws(LoadError)
}

extension RunReader {
    /// Whether every item has been read (reading past empty runs, which a
    /// lenient column may hold).
    mutating func isAtEnd() throws(LoadError) -> Bool {
        while remaining == 0 {
            if isPastLastRun { return true }
            try startRun()
        }
        return false
    }
}

/// Reads an RLE column (see ``RLEColumn``).
struct RLEReader<V: RLEValue>: RunReader {
    private enum Previous {
        case none, run(V), literal(V), nulls
    }

    private enum Run {
        case repeating(V), literal, nulls
    }

    private let data: ArraySlice<UInt8>
    private var index: Int
    private let column: String
    private let check: ColumnCheck
    private var run = Run.nulls
    /// Items left in the current run.
    private(set) var remaining: UInt64 = 0
    private var previous = Previous.none
    /// The last value of the literal run being read, if any yet.
    private var previousLiteral: V?
    /// Items returned so far.
    private(set) var produced = 0

    init(_ data: ArraySlice<UInt8>, column: String, check: ColumnCheck) {
        self.data = data
        self.index = data.startIndex
        self.column = column
        self.check = check
    }

    var isPastLastRun: Bool { index >= data.endIndex }


    /// The next item, nil for a null. Only valid when not ``isAtEnd()``.
    @inline(__always)
    mutating func next() throws(LoadError) -> V? {
        while remaining == 0 { try startRun() }
        remaining -= 1
        produced += 1
        switch run {
        case .repeating(let value): return value
        case .nulls: return nil
        case .literal: return try readLiteral()
        }
    }

    private func reject(_ reason: String) -> LoadError { .nonCanonicalColumn(column: column, reason: reason) }

    mutating func startRun() throws(LoadError) {
        precondition(index < data.endIndex, "read past the end of column \(column)")
        // Through a local: the generic struct's fields cannot be proven disjoint.
        var position = index
        defer { index = position }
        let count = try LEB128.readSigned(data, at: &position, mode: .lenient, what: column)
        if count > 0 {
            let n = UInt64(count)
            let value = try V.read(data, at: &position, column: column)
            if check.canonical {
                if n < 2 { throw reject("repeat run with count < 2") }
                switch previous {
                case .run(let p) where V.same(p, value): throw reject("adjacent repeat runs with same value")
                case .literal(let p) where V.same(p, value): throw reject("boundary values match")
                default: break
                }
            }
            try check.admit(n, after: produced, column: column)
            run = .repeating(value)
            remaining = n
            previous = .run(value)
        } else if count < 0 {
            let n = count.magnitude
            if check.canonical, case .literal = previous { throw reject("adjacent literal runs") }
            try check.admit(n, after: produced, column: column)
            run = .literal
            remaining = n
            previousLiteral = nil
        } else {
            let n = try LEB128.readUnsigned(data, at: &position, mode: .lenient, what: column)
            if check.canonical {
                if n == 0 { throw reject("null run with count 0") }
                if case .nulls = previous { throw reject("adjacent null runs") }
                if !check.nullable { throw reject("null in non-nullable column") }
            }
            try check.admit(n, after: produced, column: column)
            run = .nulls
            remaining = n
            previous = .nulls
        }
    }

    private mutating func readLiteral() throws(LoadError) -> V {
        var position = index
        let value = try V.read(data, at: &position, column: column)
        index = position
        if check.canonical {
            if let p = previousLiteral {
                if V.same(p, value) { throw reject("literal has consecutive equal values") }
            } else {
                switch previous {
                case .run(let p) where V.same(p, value), .literal(let p) where V.same(p, value):
                    throw reject("boundary values match")
                default: break
                }
            }
        }
        previousLiteral = value
        previous = .literal(value)
        return value
    }
}

/// Reads a delta column (see ``DeltaColumn``).
struct DeltaReader: ColumnReader {
    private var rle: RLEReader<Int64>
    private var absolute: Int64 = 0

    init(_ data: ArraySlice<UInt8>, column: String, check: ColumnCheck) {
        rle = RLEReader(data, column: column, check: check)
    }

    var produced: Int { rle.produced }

    mutating func isAtEnd() throws(LoadError) -> Bool { try rle.isAtEnd() }

    @inline(__always)
    mutating func next() throws(LoadError) -> Int64? {
        guard let delta = try rle.next() else { return nil }
        absolute = absolute &+ delta
        return absolute
    }
}

/// Reads a boolean column (see ``BooleanColumn``).
struct BooleanReader: RunReader {
    private let data: ArraySlice<UInt8>
    private var index: Int
    private let column: String
    private let check: ColumnCheck
    /// The value of the current run (runs alternate, starting with false).
    private var value = true
    private(set) var remaining: UInt64 = 0
    private var runIndex = 0
    private(set) var produced = 0

    init(_ data: ArraySlice<UInt8>, column: String, check: ColumnCheck) {
        self.data = data
        self.index = data.startIndex
        self.column = column
        self.check = check
    }

    var isPastLastRun: Bool { index >= data.endIndex }


    @inline(__always)
    mutating func next() throws(LoadError) -> Bool {
        while remaining == 0 { try startRun() }
        remaining -= 1
        produced += 1
        return value
    }

    mutating func startRun() throws(LoadError) {
        precondition(index < data.endIndex, "read past the end of column \(column)")
        let count = try LEB128.readUnsigned(data, at: &index, mode: .lenient, what: column)
        if check.canonical && count == 0 {
            if runIndex > 0 {
                throw .nonCanonicalColumn(column: column, reason: "zero count in non-first run")
            }
            if index >= data.endIndex {
                throw .nonCanonicalColumn(column: column, reason: "trailing zero-count run")
            }
        }
        try check.admit(count, after: produced, column: column)
        value.toggle()
        remaining = count
        runIndex += 1
    }
}

/// The op columns shared by change chunks and document chunks.
///
/// Both hold obj (1/2), key (17/19/21), insert (52), action (66), value
/// (86/87), expand (148) and mark name (165). A change chunk adds the
/// predecessors (group 112, actor 113, counter 115) and has no id column (op
/// i is startOp + i by the author); a document chunk adds the op id (33/35)
/// and the successors (128/129/131).
///
/// Presence follows Rust: a column that encodes to zero bytes is omitted.
/// That drops obj/key columns that are all null (the RLE encoder writes
/// nothing for an all-null column), the raw value column when empty, the
/// pred/succ actor and counter columns when no op has any, an all-false
/// expand column and an all-null mark-name column; insert, action, value
/// metadata and the group column are always written when there are ops.
enum OpColumns {
    enum Kind: Sendable {
        case change, document
    }

    // MARK: Encoding

    /// The encoded columns (some possibly empty, i.e. omitted).
    static func encode(_ ops: some Sequence<StoredOp>, kind: Kind) -> [(ColumnSpec, [UInt8])] {
        var writer = OpColumnWriter(kind: kind)
        for op in ops {
            writer.append(object: op.object, key: op.key, insert: op.insert, action: op.action, value: op.value,
                          id: op.id, group: kind == .change ? op.predecessors : op.successors,
                          expand: op.expand, markName: op.markName)
        }
        return writer.finish()
    }

    // MARK: Decoding

    /// Decodes the ops of a chunk into compact rows (see ``StoredOpRows``).
    ///
    /// The number of rows is the length of the action column. Every present
    /// column must hold exactly that many items (grouped columns: the sum of
    /// the group counts); absent columns mean null, false or root. Rows are
    /// built by pulling each column's next item from a reader (see
    /// ``RLEReader``), so no column is decoded into an array of its own: the
    /// action column is read twice, once to count the rows. The steps are
    /// the methods of ``OpRowDecoder``.
    /// - Parameters:
    ///   - actorCount: the size of the actor table op actor indices point into.
    ///   - canonical: whether to reject non-canonical RLE and boolean runs
    ///     (Rust checks document op columns, not change op columns).
    ///   - rowLimit: the most rows any column may decode to.
    ///   - feeding: a feed to hand the rows to as they are decoded (see
    ///     ``OpRowFeed``), with the actor table. Rows are fed only when the
    ///     builder can take them in order: when no op is an increment (a
    ///     successor's increment is read from a later row), when storage
    ///     for every row and group id fits the column bytes (reserved up
    ///     front, it may not move) and when the group ids count without
    ///     error (else the decode meets the error as it would unfed).
    static func decode(
        _ columns: ColumnSet, kind: Kind, actorCount: Int, canonical: Bool, rowLimit: Int,
        feeding: (feed: OpRowFeed, actors: [ActorId])? = nil
    ) throws(LoadError) -> StoredOpRows {
        var decoder = try OpRowDecoder(columns, kind: kind, actorCount: actorCount, canonical: canonical, rowLimit: rowLimit)
        let rows = decoder.rows
        // Reserved only as far as the column bytes could back: the action
        // column alone may claim millions of rows in a few bytes (a run). A
        // real document's columns hold more bytes than it has rows, so it
        // still gets one allocation.
        var ops = StoredOpRows(kind: kind, valueBytes: decoder.values.raw, reservingCapacity: min(rows, max(1024, columns.byteCount)))
        let feed = feeding.flatMap { feeding in
            startFeeding(feeding.feed, actors: feeding.actors, ops: &ops, rows: rows, actions: decoder.actions.reader,
                         groupActors: decoder.groupActors, byteBudget: max(1024, columns.byteCount))
        }
        var stringsPublished = 0
        for row in 0..<rows {
            let object = try decoder.object(row)
            let key = try decoder.key(row)
            let insert = try item(&decoder.inserts, "insert", row, rows)
            let (action, value) = try decoder.actionAndValue(row)
            let id = try decoder.id(row)
            let groupStart = ops.groupIds.count
            try decoder.appendGroup(row, to: &ops)
            ops.appendDecoded(
                object: object, key: key, insert: insert, action: UInt8(action), value: value, id: id,
                groupStart: groupStart, expand: try item(&decoder.expands, "expand", row, rows),
                markName: try item(&decoder.markNames, "mark name", row, rows))
            if let feed, row % OpRowFeed.publishInterval == OpRowFeed.publishInterval - 1 {
                ops.publish(to: feed, stringsPublished: &stringsPublished)
            }
        }
        try decoder.finish()
        if feed != nil { ops.endFeeding() }
        return ops
    }
}

/// The steps of ``OpColumns/decode(_:kind:actorCount:canonical:rowLimit:feeding:)``:
/// open a reader per column and count the rows, read each row's fields in
/// column order, then check that every column ends with the rows.
///
/// The readers were locals of one long function; as stored properties of
/// this value, mutated in place through `@inline(__always)` methods, they
/// are the same locals once inlined, and no reader is copied (functions
/// nested in `decode` copied the value reader on every call).
fileprivate struct OpRowDecoder {
    let kind: OpColumns.Kind
    let actorCount: Int
    /// The number of rows: the length of the action column.
    let rows: Int
    var actions: OptionalColumn<RLEReader<UInt64>>
    var objActor: OptionalColumn<RLEReader<UInt64>>
    var objCounter: OptionalColumn<RLEReader<UInt64>>
    var keyActor: OptionalColumn<RLEReader<UInt64>>
    var keyCounter: OptionalColumn<DeltaReader>
    var keyString: OptionalColumn<RLEReader<String>>
    var inserts: OptionalColumn<BooleanReader>
    var values: ValueReader
    var expands: OptionalColumn<BooleanReader>
    var markNames: OptionalColumn<RLEReader<String>>
    // Named once: interpolated per row they cost more than the checks.
    let groupColumn: String
    let groupActorColumn: String, groupCounterColumn: String
    var groupCounts: OptionalColumn<RLEReader<UInt64>>
    var groupActors: OptionalColumn<RLEReader<UInt64>>
    var groupCounters: OptionalColumn<DeltaReader>
    /// The group members read so far.
    var groupTotal = 0
    var idActors: OptionalColumn<RLEReader<UInt64>>
    var idCounters: OptionalColumn<DeltaReader>

    /// Opens a reader on each column and counts the rows.
    @inline(__always)
    init(_ columns: ColumnSet, kind: OpColumns.Kind, actorCount: Int, canonical: Bool, rowLimit: Int) throws(LoadError) {
        func check(nullable: Bool) -> ColumnCheck {
            ColumnCheck(canonical: canonical, nullable: nullable, limit: rowLimit)
        }
        func rle<V: RLEValue>(_ data: ArraySlice<UInt8>?, _ type: V.Type, _ name: String, nullable: Bool) -> OptionalColumn<RLEReader<V>> {
            OptionalColumn(isPresent: data != nil, RLEReader(data ?? [], column: name, check: check(nullable: nullable)))
        }
        func delta(_ data: ArraySlice<UInt8>?, _ name: String, nullable: Bool) -> OptionalColumn<DeltaReader> {
            OptionalColumn(isPresent: data != nil, DeltaReader(data ?? [], column: name, check: check(nullable: nullable)))
        }
        func boolean(_ data: ArraySlice<UInt8>?, _ name: String) -> OptionalColumn<BooleanReader> {
            OptionalColumn(isPresent: data != nil, BooleanReader(data ?? [], column: name, check: check(nullable: false)))
        }
        self.kind = kind
        self.actorCount = actorCount

        actions = rle(columns[.action], UInt64.self, "action", nullable: false)
        do {
            // Counted on a copy: a run may claim millions of rows in a few
            // bytes, and an array of them was allocated before any other
            // column confirmed one (Corpus/decode/action-run-reserves-gigabytes).
            var counting = actions
            rows = counting.isPresent ? try counting.reader.count() : 0
        }

        objActor = rle(columns[.objActor], UInt64.self, "obj actor", nullable: true)
        objCounter = rle(columns[.objCounter], UInt64.self, "obj counter", nullable: true)
        keyActor = rle(columns[.keyActor], UInt64.self, "key actor", nullable: true)
        keyCounter = delta(columns[.keyCounter], "key counter", nullable: true)
        keyString = rle(columns[.keyString], String.self, "key string", nullable: true)
        inserts = boolean(columns[.insert], "insert")
        values = try ValueReader(meta: columns[.valueMeta], raw: columns[.value], column: "value", check: check(nullable: false))
        expands = boolean(columns[.expand], "expand")
        markNames = rle(columns[.markName], String.self, "mark name", nullable: true)

        // Literals, not interpolated: a small change's decode spent more on three interpolations than on a row.
        let (groupSpec, actorSpec, counterSpec) = kind == .change
            ? (ColumnSpec.predGroup, ColumnSpec.predActor, ColumnSpec.predCounter)
            : (ColumnSpec.succGroup, ColumnSpec.succActor, ColumnSpec.succCounter)
        (groupColumn, groupActorColumn, groupCounterColumn) = kind == .change
            ? ("pred group", "pred actor", "pred counter") : ("succ group", "succ actor", "succ counter")
        groupCounts = rle(columns[groupSpec], UInt64.self, groupColumn, nullable: false)
        groupActors = rle(columns[actorSpec], UInt64.self, groupActorColumn, nullable: false)
        groupCounters = delta(columns[counterSpec], groupCounterColumn, nullable: false)

        // Ids are implicit in a change chunk: its id columns, if any, are not read.
        idActors = rle(kind == .document ? columns[.idActor] : nil, UInt64.self, "id actor", nullable: false)
        idCounters = delta(kind == .document ? columns[.idCounter] : nil, "id counter", nullable: false)
        if kind == .document {
            if rows > 0 && !idActors.isPresent { throw .missingColumn(column: "id actor") }
            if rows > 0 && !idCounters.isPresent { throw .missingColumn(column: "id counter") }
        }
    }

    @inline(__always)
    private func actor(_ value: UInt64, _ column: String, _ row: Int) throws(LoadError) -> Int {
        guard value < UInt64(actorCount) else { throw .actorIndexOutOfRange(column: column, row: row, index: value) }
        return Int(value)
    }

    @inline(__always)
    private func counter(_ value: Int64, _ column: String, _ row: Int) throws(LoadError) -> UInt64 {
        guard value >= 0 && value <= Int64(UInt32.max) else { throw .opCounterOverflow(column: column, row: row) }
        return UInt64(value)
    }

    /// A row's object: both null is the root.
    @inline(__always)
    mutating func object(_ row: Int) throws(LoadError) -> StoredOpId? {
        switch (try item(&objActor, "obj actor", row, rows), try item(&objCounter, "obj counter", row, rows)) {
        case (nil, nil): return nil
        case let (a?, c?):
            guard c <= UInt64(UInt32.max) else { throw .opCounterOverflow(column: "obj counter", row: row) }
            return StoredOpId(counter: c, actor: try actor(a, "obj actor", row))
        default: throw .invalidObjectId(row: row)
        }
    }

    /// A row's key: a string, HEAD (null actor, counter 0) or an element id.
    @inline(__always)
    mutating func key(_ row: Int) throws(LoadError) -> StoredKey {
        switch (try item(&keyActor, "key actor", row, rows), try item(&keyCounter, "key counter", row, rows),
                try item(&keyString, "key string", row, rows)) {
        case (nil, nil, let name?): return .map(name)
        case (nil, 0?, nil): return .element(nil)
        case let (a?, c?, nil):
            return .element(StoredOpId(counter: try counter(c, "key counter", row), actor: try actor(a, "key actor", row)))
        case (_?, _?, _?): throw .invalidKey(row: row, reason: "too many values")
        case (nil, nil, nil): throw .invalidKey(row: row, reason: "no key")
        case (nil, _, _): throw .invalidKey(row: row, reason: "unexpected null actor")
        case (_, nil, _): throw .invalidKey(row: row, reason: "unexpected null counter")
        }
    }

    /// A row's action, a known one, and its value, numeric for an increment.
    @inline(__always)
    mutating func actionAndValue(_ row: Int) throws(LoadError) -> (action: UInt64, value: (typeCode: UInt8, range: Range<Int>)) {
        guard let action = try item(&actions, "action", row, rows) else { throw .unexpectedNull(column: "action", row: row) }
        guard action <= UInt64(OpAction.maxKnownRawValue) else { throw .unknownAction(row: row, action: action) }
        let value = try values.nextRaw(row: row, rows: rows)
        if action == UInt64(OpAction.increment.rawValue) && value.typeCode != UInt8(ValueColumn.TypeCode.int) && value.typeCode != UInt8(ValueColumn.TypeCode.uint) {
            throw .nonNumericIncrement(row: row)
        }
        return (action, value)
    }

    /// A row's op id (a document chunk's; nil in a change chunk).
    @inline(__always)
    mutating func id(_ row: Int) throws(LoadError) -> StoredOpId? {
        guard idActors.isPresent else { return nil }
        guard let a = try item(&idActors, "id actor", row, rows) else { throw .unexpectedNull(column: "id actor", row: row) }
        guard let c = try item(&idCounters, "id counter", row, rows) else { throw .unexpectedNull(column: "id counter", row: row) }
        guard c >= 1 else { throw .opCounterOverflow(column: "id counter", row: row) }
        return StoredOpId(counter: try counter(c, "id counter", row), actor: try actor(a, "id actor", row))
    }

    /// A row's predecessors or successors, appended to `ops`' group ids.
    @inline(__always)
    mutating func appendGroup(_ row: Int, to ops: inout StoredOpRows) throws(LoadError) {
        var count: UInt64 = 0
        if groupCounts.isPresent {
            guard let stored = try item(&groupCounts, groupColumn, row, rows) else {
                throw .unexpectedNull(column: groupColumn, row: row)
            }
            count = stored
        }
        if count > 0 {
            // Not reserved up front: a hostile count may be near 2^64. The
            // members come from the actor and counter columns, whose runs
            // are bounded by the row limit, so the loop is too.
            for _ in 0..<count {
                guard groupActors.isPresent, try !groupActors.reader.isAtEnd() else {
                    throw .columnLengthMismatch(column: groupActorColumn, expected: groupTotal &+ Int(clamping: count), actual: groupTotal)
                }
                guard groupCounters.isPresent, try !groupCounters.reader.isAtEnd() else {
                    throw .columnLengthMismatch(column: groupCounterColumn, expected: groupTotal &+ Int(clamping: count), actual: groupTotal)
                }
                guard let a = try groupActors.reader.next() else { throw .unexpectedNull(column: groupActorColumn, row: row) }
                guard let c = try groupCounters.reader.next() else { throw .unexpectedNull(column: groupCounterColumn, row: row) }
                ops.appendGroupId(StoredOpId(counter: try counter(c, groupCounterColumn, row),
                                             actor: try actor(a, groupActorColumn, row)))
                groupTotal += 1
            }
        }
    }

    /// Checks that every column ends with the rows: counts what is left of
    /// any that does not.
    @inline(__always)
    mutating func finish() throws(LoadError) {
        func finish<Reader: ColumnReader>(_ column: inout OptionalColumn<Reader>, _ name: String, expected: Int) throws(LoadError) {
            guard column.isPresent else { return }
            let total = try column.reader.count()
            if total != expected { throw .columnLengthMismatch(column: name, expected: expected, actual: total) }
        }
        try finish(&actions, "action", expected: rows)
        try finish(&objActor, "obj actor", expected: rows)
        try finish(&objCounter, "obj counter", expected: rows)
        try finish(&keyActor, "key actor", expected: rows)
        try finish(&keyCounter, "key counter", expected: rows)
        try finish(&keyString, "key string", expected: rows)
        try finish(&inserts, "insert", expected: rows)
        try values.finish(rows: rows)
        try finish(&expands, "expand", expected: rows)
        try finish(&markNames, "mark name", expected: rows)
        try finish(&groupCounts, groupColumn, expected: rows)
        try finish(&groupActors, groupActorColumn, expected: groupTotal)
        try finish(&groupCounters, groupCounterColumn, expected: groupTotal)
        try finish(&idActors, "id actor", expected: rows)
        try finish(&idCounters, "id counter", expected: rows)
    }
}

extension OpColumns {
    /// Starts feeding `ops` to `feed` if the builder can take them in order
    /// (see ``decode(_:kind:actorCount:canonical:rowLimit:feeding:)``), and
    /// returns the feed if so.
    fileprivate static func startFeeding(
        _ feed: OpRowFeed, actors: [ActorId], ops: inout StoredOpRows, rows: Int, actions: RLEReader<UInt64>,
        groupActors: OptionalColumn<RLEReader<UInt64>>, byteBudget: Int
    ) -> OpRowFeed? {
        guard rows <= byteBudget else { return nil }
        var actions = actions
        var groupIdReader = groupActors.reader
        let increment = UInt64(OpAction.increment.rawValue)
        guard let hasIncrements = try? actions.contains(increment), !hasIncrements,
              let groupIdCount = try? groupIdReader.count(), groupIdCount <= byteBudget else { return nil }
        ops.beginFeeding(feed, rows: rows, groupIds: groupActors.isPresent ? groupIdCount : 0, actors: actors)
        return feed
    }
}

/// A column a chunk may leave out, read in place. As a `Reader?`, every
/// read of every row asked the optional for its case through an outlined
/// helper (4% of a load); here that is one stored flag.
fileprivate struct OptionalColumn<Reader: ColumnReader> {
    let isPresent: Bool
    /// Reads nothing when the column is absent (it is then built on no bytes).
    var reader: Reader

    init(isPresent: Bool, _ reader: Reader) {
        self.isPresent = isPresent
        self.reader = reader
    }
}

// Column reads, free functions rather than functions nested in `decode`:
// nested, they copied the op decoder's value reader on every call.

/// The next item of an optional column (nil when absent); a column that ends
/// before `rows` items is too short.
@inline(__always)
private func nextItem<Reader: ColumnReader>(
    _ column: inout OptionalColumn<Reader>, _ name: String, _ row: Int, _ rows: Int
) throws(LoadError) -> Reader.Item? {
    guard column.isPresent else { return nil }
    if try column.reader.isAtEnd() { throw .columnLengthMismatch(column: name, expected: rows, actual: row) }
    return try column.reader.next()
}

/// The next value of a nullable column: nil for a null or an absent column.
@inline(__always)
private func item<Reader: ColumnReader, V>(
    _ column: inout OptionalColumn<Reader>, _ name: String, _ row: Int, _ rows: Int
) throws(LoadError) -> V? where Reader.Item == V? {
    try nextItem(&column, name, row, rows) ?? nil
}

/// The next flag of a boolean column: false when absent.
@inline(__always)
private func item(_ column: inout OptionalColumn<BooleanReader>, _ name: String, _ row: Int, _ rows: Int) throws(LoadError) -> Bool {
    try nextItem(&column, name, row, rows) ?? false
}

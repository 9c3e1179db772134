/// The op rows of a chunk as decoded, held compactly: one fixed-width
/// ``Row`` per op (no string, array or value of its own) beside three
/// shared stores: the value column's raw bytes, a table of the map keys and
/// mark names, and the group ids (successors or predecessors) of all rows
/// end to end.
///
/// A document has an op per character ever typed, and its rows are read
/// twice on load (to rebuild its changes and to build the op set), then
/// dropped. As ``StoredOp`` values they were 168 bytes each with a string,
/// a value and an id list to retain, copy and destroy: fresh memory and
/// page faults in proportion, and destroying them cost as much as hashing
/// every change. A row is 48 bytes with nothing to destroy, and a
/// value stays as its bytes until the op set needs it; the rebuilt changes
/// copy those bytes as they are (a decoded value re-encodes to the same
/// bytes: numbers are read strictly, strings must be valid UTF-8; only a
/// null or boolean's stray bytes are dropped, as before).
///
/// The collection reads and writes whole ``StoredOp`` values, for tests and
/// change chunks; hot paths read ``rows`` and the stores directly.
struct StoredOpRows: Sendable {
    /// One op row. Ids are (counter, actor index) pairs; an actor of
    /// ``Row/none`` marks an absent id: the root object, the HEAD key, a
    /// change row's implicit id. A map key is a string of ``strings``.
    ///
    /// Counters take 32 bits (decoding refuses larger ones, as Rust does),
    /// and so does a value's offset (decoding refuses a value column past
    /// 4 GB): a row is 48 bytes, the larger part of a load's transient memory.
    struct Row: Sendable {
        var objectCounter: UInt32
        var keyCounter: UInt32
        var idCounter: UInt32
        /// Where the value's bytes start in ``valueBytes`` (from its start index).
        var valueStart: UInt32
        var objectActor: UInt32
        /// ``Row/none`` for HEAD, ``Row/mapKey`` for a map key (its string
        /// index in ``keyCounter``).
        var keyActor: UInt32
        var idActor: UInt32
        var valueLength: UInt32
        var groupStart: UInt32
        var groupCount: UInt32
        /// 0 for none, else the index in ``strings`` plus one.
        var markName: UInt32
        var action: UInt8
        var valueType: UInt8
        var insert: Bool
        var expand: Bool

        static let none = UInt32.max
        static let mapKey = UInt32.max - 1

        var object: StoredOpId? {
            objectActor == Self.none ? nil : StoredOpId(counter: UInt64(objectCounter), actor: Int(objectActor))
        }

        var id: StoredOpId? { idActor == Self.none ? nil : StoredOpId(counter: UInt64(idCounter), actor: Int(idActor)) }

        var isMapKey: Bool { keyActor == Self.mapKey }

        /// The element a sequence op targets (nil for HEAD); meaningless for a map key.
        var element: StoredOpId? {
            keyActor == Self.none ? nil : StoredOpId(counter: UInt64(keyCounter), actor: Int(keyActor))
        }

        var groupRange: Range<Int> { Int(groupStart)..<Int(groupStart) + Int(groupCount) }

        var valueRange: Range<Int> { Int(valueStart)..<Int(valueStart) + Int(valueLength) }
    }

    /// Whether the group ids are predecessors (a change) or successors (a document).
    let kind: OpColumns.Kind
    /// The rows, in storage a builder on another thread can follow while
    /// they are decoded (see ``OpRowFeed``).
    private(set) var rows = FollowableBuffer<Row>()
    /// The raw value bytes the rows point into.
    private(set) var valueBytes: ArraySlice<UInt8>
    /// Map keys and mark names.
    private(set) var strings: [String] = []
    /// Every row's group ids, end to end.
    private(set) var groupIds = FollowableBuffer<StoredOpId>()

    init(kind: OpColumns.Kind, valueBytes: ArraySlice<UInt8> = [], reservingCapacity capacity: Int = 0) {
        self.kind = kind
        self.valueBytes = valueBytes
        rows.reserveCapacity(capacity)
    }

    init(kind: OpColumns.Kind, _ ops: some Sequence<StoredOp>) {
        self.init(kind: kind)
        for op in ops { append(op) }
    }

    // MARK: Decoding

    /// Appends a decoded row whose value is already in ``valueBytes`` and
    /// whose group ids were appended with ``appendGroupId(_:)``.
    @inline(__always)
    mutating func appendDecoded(
        object: StoredOpId?, key: StoredKey, insert: Bool, action: UInt8, value: (typeCode: UInt8, range: Range<Int>),
        id: StoredOpId?, groupStart: Int, expand: Bool, markName: String?
    ) {
        assert(Self.countersFit(object: object, key: key, id: id), "decoding lets no counter past 32 bits")
        var row = Row(
            objectCounter: UInt32(truncatingIfNeeded: object?.counter ?? 0), keyCounter: 0,
            idCounter: UInt32(truncatingIfNeeded: id?.counter ?? 0),
            valueStart: UInt32(value.range.lowerBound), objectActor: object.map { UInt32($0.actor) } ?? Row.none,
            keyActor: Row.none, idActor: id.map { UInt32($0.actor) } ?? Row.none,
            valueLength: UInt32(value.range.count), groupStart: UInt32(groupStart),
            groupCount: UInt32(groupIds.count - groupStart), markName: 0, action: action,
            valueType: value.typeCode, insert: insert, expand: expand)
        switch key {
        case .map(let name):
            row.keyActor = Row.mapKey
            row.keyCounter = UInt32(intern(name))
        case .element(let element?):
            row.keyActor = UInt32(element.actor)
            row.keyCounter = UInt32(truncatingIfNeeded: element.counter)
        case .element(nil): break
        }
        if let markName { row.markName = UInt32(intern(markName)) + 1 }
        rows.append(row)
    }

    /// Whether the counters of a row fit in 32 bits, as ``Row`` keeps them.
    static func countersFit(object: StoredOpId?, key: StoredKey, id: StoredOpId?) -> Bool {
        let limit = UInt64(UInt32.max)
        if case .element(let element?) = key, element.counter > limit { return false }
        return (object?.counter ?? 0) <= limit && (id?.counter ?? 0) <= limit
    }

    /// Appends one group id of the row about to be appended.
    @inline(__always)
    mutating func appendGroupId(_ id: StoredOpId) { groupIds.append(id) }

    /// Reserves room for every row and group id of a chunk and has `feed`
    /// follow them as they are appended (see ``publish(to:stringsPublished:)``).
    mutating func beginFeeding(_ feed: OpRowFeed, rows rowCount: Int, groupIds groupCount: Int, actors: [ActorId]) {
        rows.reserveCapacity(rowCount)
        groupIds.reserveCapacity(groupCount)
        feed.begin(actors: actors, rows: rows.beginFollowing(), groupIds: groupIds.beginFollowing(), valueBytes: valueBytes)
    }

    /// Tells `feed` that the rows and group ids appended so far may be
    /// read, with the strings interned after the first `stringsPublished`.
    func publish(to feed: OpRowFeed, stringsPublished: inout Int) {
        feed.publish(rowCount: rows.count, groupCount: groupIds.count, newStrings: strings[stringsPublished...])
        stringsPublished = strings.count
    }

    /// Ends feeding: the rows and group ids may be rewritten again (copied
    /// first, while the feed holds them).
    mutating func endFeeding() {
        rows.endFollowing()
        groupIds.endFollowing()
    }

    /// The index of `string` in ``strings``: the last one when it has the
    /// same bytes (a string column repeats its runs' value), else a new one.
    /// Bytes, not `==`: Swift's `==` holds "é" and "e\u{301}" equal.
    private mutating func intern(_ string: String) -> Int {
        if let last = strings.last, last.utf8.elementsEqual(string.utf8) { return strings.count - 1 }
        strings.append(string)
        return strings.count - 1
    }

    // MARK: Reading

    /// The key of `row`.
    func key(of row: Row) -> StoredKey {
        mapKey(of: row).map { .map($0) } ?? .element(row.element)
    }

    /// The map key of `row`; nil for a list or text op.
    func mapKey(of row: Row) -> String? { Self.mapKey(of: row, in: strings) }

    /// The mark name of `row`.
    func markName(of row: Row) -> String? { Self.markName(of: row, in: strings) }

    /// The value of `row`.
    func value(of row: Row) -> Primitive { Self.value(of: row, in: valueBytes) }

    /// The map key of `row`, a row of rows whose strings are `strings`.
    static func mapKey(of row: Row, in strings: [String]) -> String? {
        row.isMapKey ? strings[Int(row.keyCounter)] : nil
    }

    /// The mark name of `row`, a row of rows whose strings are `strings`.
    static func markName(of row: Row, in strings: [String]) -> String? {
        row.markName == 0 ? nil : strings[Int(row.markName) - 1]
    }

    /// The value of `row`, a row of rows whose value bytes are
    /// `valueBytes`. Rows hold values that decoded (or came from a
    /// ``Primitive``), so this cannot meet bad bytes.
    static func value(of row: Row, in valueBytes: ArraySlice<UInt8>) -> Primitive {
        let start = valueBytes.startIndex + Int(row.valueStart)
        // A character of text: most values of a text document, and making
        // each String afresh (validating its one byte) was a tenth of a load.
        if row.valueType == UInt8(ValueColumn.TypeCode.string) && row.valueLength == 1 && valueBytes[start] < 0x80 {
            return .string(UTF8Text.asciiCharacters[Int(valueBytes[start])])
        }
        let bytes = valueBytes[start..<start + Int(row.valueLength)]
        do {
            return try ValueColumn.primitive(typeCode: UInt64(row.valueType), bytes: bytes, column: "value", row: 0)
        } catch {
            assertionFailure("a stored row holds an invalid value: \(error)")
            return .null
        }
    }

    // MARK: Writing whole ops

    /// Appends `op`, its value encoded after the bytes already held.
    mutating func append(_ op: StoredOp) {
        let start = valueBytes.count
        var encoded = [UInt8]()
        ValueColumn.appendRaw(op.value, to: &encoded)
        valueBytes.append(contentsOf: encoded)
        let groupStart = groupIds.count
        for id in kind == .change ? op.predecessors : op.successors { appendGroupId(id) }
        precondition(op.action <= UInt64(UInt8.max), "StoredOpRows holds actions up to 255 (decoded rows have 0...7)")
        precondition(Self.countersFit(object: op.object, key: op.key, id: op.id), "StoredOpRows holds counters up to 2^32 - 1")
        let typeCode = UInt8(ValueColumn.metadata(of: op.value) & 0xF)
        appendDecoded(
            object: op.object, key: op.key, insert: op.insert, action: UInt8(op.action),
            value: (typeCode, start..<start + encoded.count), id: op.id, groupStart: groupStart, expand: op.expand,
            markName: op.markName)
    }
}

extension StoredOpRows: RandomAccessCollection, MutableCollection {
    var startIndex: Int { 0 }
    var endIndex: Int { rows.count }

    subscript(position: Int) -> StoredOp {
        get {
            let row = rows[position]
            let group = StoredOpIdList(groupIds[row.groupRange])
            return StoredOp(
                object: row.object, key: key(of: row), insert: row.insert, action: UInt64(row.action),
                value: value(of: row), predecessors: kind == .change ? group : [], id: row.id,
                successors: kind == .document ? group : [], expand: row.expand, markName: markName(of: row))
        }
        set {
            // The old row's value bytes, strings and group ids stay unreferenced: only tests rewrite rows.
            let last = rows.count
            append(newValue)
            rows[position] = rows.removeLast()
            assert(rows.count == last)
        }
    }
}

extension StoredOpRows: Equatable {
    /// Rows are equal when they hold the same ops, however their stores are laid out.
    static func == (lhs: StoredOpRows, rhs: StoredOpRows) -> Bool {
        lhs.kind == rhs.kind && lhs.elementsEqual(rhs)
    }
}

extension StoredOpRows: ExpressibleByArrayLiteral {
    /// The rows of a document chunk.
    init(arrayLiteral ops: StoredOp...) { self.init(kind: .document, ops) }
}

/// Writes op rows into the op columns one row at a time, so that a document
/// can stream its ops straight from the op set on save without building an
/// intermediate array of ``StoredOp`` values (which cost more than the
/// encoding itself).
///
/// Presence follows Rust: a column that encodes to zero bytes is omitted
/// (see ``OpColumns``).
struct OpColumnWriter {
    let kind: OpColumns.Kind
    private var objActor = RLEEncoder<UInt64>(), objCounter = RLEEncoder<UInt64>()
    private var keyActor = RLEEncoder<UInt64>(), keyCounter = DeltaEncoder(), keyString = RLEEncoder<String>()
    private var idActor = RLEEncoder<UInt64>(), idCounter = DeltaEncoder()
    private var insert = BooleanEncoder(), action = RLEEncoder<UInt64>()
    private var valueMeta = RLEEncoder<UInt64>(), valueRaw = [UInt8]()
    private var groupCount = RLEEncoder<UInt64>(), groupActor = RLEEncoder<UInt64>(), groupCounter = DeltaEncoder()
    private var expand = BooleanEncoder(), markName = RLEEncoder<String>()
    #if DEBUG
    /// Group members the last row announced and the caller has not yet appended.
    private var pendingGroupMembers = 0
    #else
    private var pendingGroupMembers: Int { 0 }
    #endif

    init(kind: OpColumns.Kind) {
        self.kind = kind
    }

    /// Appends one row. `group` is the predecessors in a change chunk and the
    /// successors in a document chunk; `id` is written only in a document.
    mutating func append(
        object: StoredOpId?, key: StoredKey, insert isInsert: Bool, action code: UInt64, value: Primitive,
        id: StoredOpId?, group: some Collection<StoredOpId>, expand isExpand: Bool, markName name: String?
    ) {
        append(object: object, key: key, insert: isInsert, action: code, value: value, id: id,
               groupCount: group.count, expand: isExpand, markName: name)
        for member in group { appendGroupMember(member) }
    }

    /// Appends one row whose group of `groupCount` op ids the caller then
    /// appends with ``appendGroupMember(_:)``, before the next row. Each
    /// column is encoded on its own, so a row's group members need not be
    /// written with the rest of it; this spares a save wrapping each op's
    /// successors in a collection.
    mutating func append(
        object: StoredOpId?, key: StoredKey, insert isInsert: Bool, action code: UInt64, value: Primitive,
        id: StoredOpId?, groupCount members: Int, expand isExpand: Bool, markName name: String?
    ) {
        appendOpIds(object: object, key: key, insert: isInsert, action: code, id: id, groupCount: members)
        appendValues(value: value, expand: isExpand, markName: name)
    }

    /// Appends one row whose value is given as the bytes it was decoded
    /// from (see ``StoredOpRows``); otherwise as the other `append`.
    mutating func append(
        object: StoredOpId?, key: StoredKey, insert isInsert: Bool, action code: UInt64,
        rawValue: (typeCode: UInt8, bytes: UnsafeBufferPointer<UInt8>),
        id: StoredOpId?, groupCount members: Int, expand isExpand: Bool, markName name: String?
    ) {
        appendOpIds(object: object, key: key, insert: isInsert, action: code, id: id, groupCount: members)
        appendValues(rawValue: rawValue, expand: isExpand, markName: name)
    }

    /// The op-id half of a row (object, key, id, insert, action and group
    /// count); its group members follow with ``appendGroupMember(_:)``, its
    /// value with one of the `appendValues`. A caller that reads an op in
    /// place calls the halves itself.
    @inline(__always)
    mutating func appendOpIds(object: StoredOpId?, key: StoredKey, insert isInsert: Bool, action code: UInt64,
                              id: StoredOpId?, groupCount members: Int) {
        assert(pendingGroupMembers == 0, "the previous row's group is incomplete")
        #if DEBUG
        pendingGroupMembers = members
        #endif
        if let object {
            objActor.appendValue(UInt64(object.actor))
            objCounter.appendValue(object.counter)
        } else {
            objActor.appendNull()
            objCounter.appendNull()
        }
        switch key {
        case .map(let name):
            keyActor.appendNull()
            keyCounter.append(nil)
            keyString.appendValue(name)
        case .element(nil):
            keyActor.appendNull()
            keyCounter.append(0)
            keyString.appendNull()
        case .element(let element?):
            keyActor.appendValue(UInt64(element.actor))
            keyCounter.append(Int64(truncatingIfNeeded: element.counter))
            keyString.appendNull()
        }
        if kind == .document {
            let id = id ?? StoredOpId(counter: 0, actor: 0)
            idActor.appendValue(UInt64(id.actor))
            idCounter.append(Int64(truncatingIfNeeded: id.counter))
        }
        insert.append(isInsert)
        action.appendValue(code)
        groupCount.appendValue(UInt64(members))
    }

    /// The values half of a row: value, expand flag and mark name.
    @inline(__always)
    mutating func appendValues(value: Primitive, expand isExpand: Bool, markName name: String?) {
        ValueColumn.append(value, metadata: &valueMeta, raw: &valueRaw)
        appendFlags(expand: isExpand, markName: name)
    }

    /// The values half of a row whose value is the bytes it was decoded from.
    @inline(__always)
    mutating func appendValues(rawValue: (typeCode: UInt8, bytes: UnsafeBufferPointer<UInt8>), expand isExpand: Bool,
                               markName name: String?) {
        valueMeta.appendValue(UInt64(rawValue.bytes.count) << 4 | UInt64(rawValue.typeCode))
        // Mostly one byte (a character of text), where append(contentsOf:) costs many times append.
        if rawValue.bytes.count == 1 { valueRaw.append(rawValue.bytes[0]) } else { valueRaw.append(contentsOf: rawValue.bytes) }
        appendFlags(expand: isExpand, markName: name)
    }

    @inline(__always)
    private mutating func appendFlags(expand isExpand: Bool, markName name: String?) {
        expand.append(isExpand)
        markName.append(name)
    }

    /// Appends one op id of the last row's group (see
    /// ``appendOpIds(object:key:insert:action:id:groupCount:)``).
    mutating func appendGroupMember(_ member: StoredOpId) {
        #if DEBUG
        assert(pendingGroupMembers > 0, "more group members than the row's group count")
        pendingGroupMembers -= 1
        #endif
        groupActor.appendValue(UInt64(member.actor))
        groupCounter.append(Int64(truncatingIfNeeded: member.counter))
    }

    /// Continues these columns with the rows `other` was given, as if they
    /// had been appended here: a large save encodes two halves of its rows
    /// on two cores and joins them (see
    /// ``RLEEncoder/append(contentsOf:adjustFirstValue:)``).
    mutating func append(contentsOf other: OpColumnWriter) {
        precondition(kind == other.kind, "joining writers of different columns")
        assert(pendingGroupMembers == 0 && other.pendingGroupMembers == 0, "a row's group is incomplete")
        objActor.append(contentsOf: other.objActor)
        objCounter.append(contentsOf: other.objCounter)
        keyActor.append(contentsOf: other.keyActor)
        keyCounter.append(contentsOf: other.keyCounter)
        keyString.append(contentsOf: other.keyString)
        idActor.append(contentsOf: other.idActor)
        idCounter.append(contentsOf: other.idCounter)
        insert.append(contentsOf: other.insert)
        action.append(contentsOf: other.action)
        valueMeta.append(contentsOf: other.valueMeta)
        valueRaw.append(contentsOf: other.valueRaw)
        groupCount.append(contentsOf: other.groupCount)
        groupActor.append(contentsOf: other.groupActor)
        groupCounter.append(contentsOf: other.groupCounter)
        expand.append(contentsOf: other.expand)
        markName.append(contentsOf: other.markName)
    }

    /// Finishes the columns and appends the specs and lengths of those that
    /// are not empty to `layout`, in spec order; ``appendFinishedColumns(to:)``
    /// then writes their bytes. Rebuilding a document's changes encodes one
    /// small change after another with one writer, and a fresh writer for
    /// each (some 30 buffers) was a tenth of such a load.
    mutating func finish(layout: inout [(spec: ColumnSpec, length: Int)]) {
        finishColumns { spec, bytes in
            if !bytes.isEmpty { layout.append((spec, bytes.count)) }
        }
        assert(zip(layout, layout.dropFirst()).allSatisfy { $0.spec < $1.spec }, "columns out of spec order")
    }

    /// Appends the bytes of the columns ``finish(layout:)`` listed to `data`,
    /// in the same order, then empties the writer for the next rows, keeping
    /// its buffers. It finishes the columns a second time, which changes
    /// nothing: every encoder's `finish` leaves it finished, and finishing
    /// it again returns the same bytes.
    mutating func appendFinishedColumns(to data: inout [UInt8]) {
        finishColumns { _, bytes in
            if !bytes.isEmpty { data.append(contentsOf: bytes) }
        }
        reset()
    }

    private mutating func reset() {
        objActor.reset(); objCounter.reset()
        keyActor.reset(); keyCounter.reset(); keyString.reset()
        idActor.reset(); idCounter.reset()
        insert.reset(); action.reset()
        valueMeta.reset()
        if !valueRaw.isEmpty { valueRaw.removeAll(keepingCapacity: true) }
        groupCount.reset(); groupActor.reset(); groupCounter.reset()
        expand.reset(); markName.reset()
    }

    /// The encoded columns, in spec order (some possibly empty, i.e. omitted).
    mutating func finish() -> [(ColumnSpec, [UInt8])] {
        var columns: [(ColumnSpec, [UInt8])] = []
        finishColumns { columns.append(($0, $1)) }
        return columns
    }

    /// Finishes every column of this writer's kind and hands each to
    /// `body`, in spec order: the one list of which columns a chunk of
    /// each kind has.
    private mutating func finishColumns(_ body: (ColumnSpec, [UInt8]) -> Void) {
        assert(pendingGroupMembers == 0, "the last row's group is incomplete")
        let isChange = kind == .change
        body(.objActor, objActor.finish())
        body(.objCounter, objCounter.finish())
        body(.keyActor, keyActor.finish())
        body(.keyCounter, keyCounter.finish())
        body(.keyString, keyString.finish())
        if !isChange {
            body(.idActor, idActor.finish())
            body(.idCounter, idCounter.finish())
        }
        body(.insert, insert.finish())
        body(.action, action.finish())
        body(.valueMeta, valueMeta.finish())
        body(.value, valueRaw)
        body(isChange ? .predGroup : .succGroup, groupCount.finish())
        body(isChange ? .predActor : .succActor, groupActor.finish())
        body(isChange ? .predCounter : .succCounter, groupCounter.finish())
        body(.expand, expand.finish(omitIfAllFalse: true))
        body(.markName, markName.finish())
    }
}

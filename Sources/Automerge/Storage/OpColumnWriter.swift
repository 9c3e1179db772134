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

    init(kind: OpColumns.Kind) { self.kind = kind }

    /// Appends one row. `group` is the predecessors in a change chunk and the
    /// successors in a document chunk; `id` is written only in a document.
    mutating func append(
        object: StoredOpId?, key: StoredKey, insert isInsert: Bool, action code: UInt64, value: Primitive,
        id: StoredOpId?, group: some Collection<StoredOpId>, expand isExpand: Bool, markName name: String?
    ) {
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
        valueMeta.appendValue(ValueColumn.metadata(of: value))
        ValueColumn.appendRaw(value, to: &valueRaw)
        groupCount.appendValue(UInt64(group.count))
        for member in group {
            groupActor.appendValue(UInt64(member.actor))
            groupCounter.append(Int64(truncatingIfNeeded: member.counter))
        }
        expand.append(isExpand)
        markName.append(name)
    }

    /// The encoded columns in spec order within each part (some possibly
    /// empty, i.e. omitted).
    mutating func finish() -> [(ColumnSpec, [UInt8])] {
        var columns: [(ColumnSpec, [UInt8])] = [
            (.objActor, objActor.finish()), (.objCounter, objCounter.finish()),
            (.keyActor, keyActor.finish()), (.keyCounter, keyCounter.finish()), (.keyString, keyString.finish()),
            (.insert, insert.finish()),
            (.action, action.finish()),
            (.valueMeta, valueMeta.finish()), (.value, valueRaw),
            (.expand, expand.finish(omitIfAllFalse: true)),
            (.markName, markName.finish()),
        ]
        switch kind {
        case .change:
            columns += [(.predGroup, groupCount.finish()), (.predActor, groupActor.finish()),
                        (.predCounter, groupCounter.finish())]
        case .document:
            columns += [(.idActor, idActor.finish()), (.idCounter, idCounter.finish()),
                        (.succGroup, groupCount.finish()), (.succActor, groupActor.finish()),
                        (.succCounter, groupCounter.finish())]
        }
        return columns
    }
}

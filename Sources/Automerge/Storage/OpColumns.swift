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
    static func encode(_ ops: [StoredOp], kind: Kind) -> [(ColumnSpec, [UInt8])] {
        var writer = OpColumnWriter(kind: kind)
        for op in ops {
            writer.append(object: op.object, key: op.key, insert: op.insert, action: op.action, value: op.value,
                          id: op.id, group: kind == .change ? op.predecessors : op.successors,
                          expand: op.expand, markName: op.markName)
        }
        return writer.finish()
    }

    // MARK: Decoding

    /// Decodes the ops of a chunk.
    ///
    /// The number of rows is the length of the action column. Every present
    /// column must hold exactly that many items (grouped columns: the sum of
    /// the group counts); absent columns mean null, false or root.
    /// - Parameters:
    ///   - actorCount: the size of the actor table op actor indices point into.
    ///   - canonical: whether to reject non-canonical RLE and boolean runs
    ///     (Rust checks document op columns, not change op columns).
    ///   - rowLimit: the most rows any column may decode to.
    static func decode(
        _ columns: ColumnSet, kind: Kind, actorCount: Int, canonical: Bool, rowLimit: Int
    ) throws(LoadError) -> [StoredOp] {
        // Set once the action column gives the row count, so that the
        // columns decoded after it reserve their rows up front.
        var rowHint = 0
        func check(nullable: Bool) -> ColumnCheck {
            ColumnCheck(canonical: canonical, nullable: nullable, limit: rowLimit, expectedCount: rowHint)
        }
        func rle<V: RLEValue>(_ spec: ColumnSpec, _ type: V.Type, _ name: String, nullable: Bool) throws(LoadError) -> [V?]? {
            guard let data = columns[spec] else { return nil }
            return try RLEColumn.decode(data, as: type, column: name, check: check(nullable: nullable))
        }
        func delta(_ spec: ColumnSpec, _ name: String, nullable: Bool) throws(LoadError) -> [Int64?]? {
            guard let data = columns[spec] else { return nil }
            return try DeltaColumn.decode(data, column: name, check: check(nullable: nullable))
        }
        func boolean(_ spec: ColumnSpec, _ name: String) throws(LoadError) -> [Bool]? {
            guard let data = columns[spec] else { return nil }
            return try BooleanColumn.decode(data, column: name, check: check(nullable: false))
        }

        let actions = try rle(.action, UInt64.self, "action", nullable: false) ?? []
        let rows = actions.count
        rowHint = rows
        func sized<T>(_ values: T?, _ name: String) throws(LoadError) -> T? where T: Collection {
            if let values, values.count != rows {
                throw .columnLengthMismatch(column: name, expected: rows, actual: values.count)
            }
            return values
        }

        let objActor = try sized(rle(.objActor, UInt64.self, "obj actor", nullable: true), "obj actor")
        let objCounter = try sized(rle(.objCounter, UInt64.self, "obj counter", nullable: true), "obj counter")
        let keyActor = try sized(rle(.keyActor, UInt64.self, "key actor", nullable: true), "key actor")
        let keyCounter = try sized(delta(.keyCounter, "key counter", nullable: true), "key counter")
        let keyString = try sized(rle(.keyString, String.self, "key string", nullable: true), "key string")
        let inserts = try sized(boolean(.insert, "insert"), "insert")
        let values = try ValueColumn.decode(
            meta: columns[.valueMeta], raw: columns[.value], rows: rows, column: "value", check: check(nullable: false))
        let expands = try sized(boolean(.expand, "expand"), "expand")
        let markNames = try sized(rle(.markName, String.self, "mark name", nullable: true), "mark name")

        let (groupSpec, actorSpec, counterSpec, groupName) = kind == .change
            ? (ColumnSpec.predGroup, ColumnSpec.predActor, ColumnSpec.predCounter, "pred")
            : (ColumnSpec.succGroup, ColumnSpec.succActor, ColumnSpec.succCounter, "succ")
        let groupCounts = try sized(rle(groupSpec, UInt64.self, "\(groupName) group", nullable: false), "\(groupName) group")
        let groupActors = try rle(actorSpec, UInt64.self, "\(groupName) actor", nullable: false) ?? []
        let groupCounters = try delta(counterSpec, "\(groupName) counter", nullable: false) ?? []
        var groupTotal: UInt64 = 0
        for (row, count) in (groupCounts ?? []).enumerated() {
            guard let count else { throw .unexpectedNull(column: "\(groupName) group", row: row) }
            let sum = groupTotal.addingReportingOverflow(count)
            guard !sum.overflow else {
                throw .columnLengthMismatch(column: "\(groupName) actor", expected: Int.max, actual: groupActors.count)
            }
            groupTotal = sum.partialValue
        }
        guard groupTotal == UInt64(groupActors.count) else {
            throw .columnLengthMismatch(column: "\(groupName) actor", expected: Int(clamping: groupTotal), actual: groupActors.count)
        }
        guard groupTotal == UInt64(groupCounters.count) else {
            throw .columnLengthMismatch(column: "\(groupName) counter", expected: Int(clamping: groupTotal), actual: groupCounters.count)
        }

        var idActors: [UInt64?]? = nil, idCounters: [Int64?]? = nil
        if kind == .document {
            idActors = try sized(rle(.idActor, UInt64.self, "id actor", nullable: false), "id actor")
            idCounters = try sized(delta(.idCounter, "id counter", nullable: false), "id counter")
            if rows > 0 && idActors == nil { throw .missingColumn(column: "id actor") }
            if rows > 0 && idCounters == nil { throw .missingColumn(column: "id counter") }
        }

        func actor(_ value: UInt64, _ column: String, _ row: Int) throws(LoadError) -> Int {
            guard value < UInt64(actorCount) else { throw .actorIndexOutOfRange(column: column, row: row, index: value) }
            return Int(value)
        }
        func counter(_ value: Int64, _ column: String, _ row: Int) throws(LoadError) -> UInt64 {
            guard value >= 0 && value <= Int64(UInt32.max) else { throw .opCounterOverflow(column: column, row: row) }
            return UInt64(value)
        }

        // Named once: interpolated per row they cost more than the checks.
        let groupActorColumn = "\(groupName) actor", groupCounterColumn = "\(groupName) counter"
        var ops = [StoredOp]()
        ops.reserveCapacity(rows)
        var groupIndex = 0
        for row in 0..<rows {
            // Object: both null is the root.
            let object: StoredOpId?
            switch (objActor?[row] ?? nil, objCounter?[row] ?? nil) {
            case (nil, nil): object = nil
            case let (a?, c?):
                guard c <= UInt64(UInt32.max) else { throw .opCounterOverflow(column: "obj counter", row: row) }
                object = StoredOpId(counter: c, actor: try actor(a, "obj actor", row))
            default: throw .invalidObjectId(row: row)
            }

            // Key: a string, HEAD (null actor, counter 0) or an element id.
            let key: StoredKey
            switch (keyActor?[row] ?? nil, keyCounter?[row] ?? nil, keyString?[row] ?? nil) {
            case (nil, nil, let name?): key = .map(name)
            case (nil, 0?, nil): key = .element(nil)
            case let (a?, c?, nil):
                key = .element(StoredOpId(counter: try counter(c, "key counter", row), actor: try actor(a, "key actor", row)))
            case (_?, _?, _?): throw .invalidKey(row: row, reason: "too many values")
            case (nil, nil, nil): throw .invalidKey(row: row, reason: "no key")
            case (nil, _, _): throw .invalidKey(row: row, reason: "unexpected null actor")
            case (_, nil, _): throw .invalidKey(row: row, reason: "unexpected null counter")
            }

            guard let action = actions[row] else { throw .unexpectedNull(column: "action", row: row) }
            guard action <= 7 else { throw .unknownAction(row: row, action: action) }
            let value = values[row]
            if action == 5 {
                switch value {
                case .int, .uint: break
                default: throw .nonNumericIncrement(row: row)
                }
            }

            var id: StoredOpId? = nil
            if let idActors, let idCounters {
                guard let a = idActors[row] else { throw .unexpectedNull(column: "id actor", row: row) }
                guard let c = idCounters[row] else { throw .unexpectedNull(column: "id counter", row: row) }
                guard c >= 1 else { throw .opCounterOverflow(column: "id counter", row: row) }
                id = StoredOpId(counter: try counter(c, "id counter", row), actor: try actor(a, "id actor", row))
            }

            var list = [StoredOpId]()
            if let count = groupCounts?[row] ?? nil, count > 0 {
                list.reserveCapacity(Int(count))
                for _ in 0..<count {
                    guard let a = groupActors[groupIndex] else { throw .unexpectedNull(column: groupActorColumn, row: row) }
                    guard let c = groupCounters[groupIndex] else { throw .unexpectedNull(column: groupCounterColumn, row: row) }
                    list.append(StoredOpId(counter: try counter(c, groupCounterColumn, row),
                                           actor: try actor(a, groupActorColumn, row)))
                    groupIndex += 1
                }
            }

            ops.append(StoredOp(
                object: object, key: key, insert: inserts?[row] ?? false, action: action, value: value,
                predecessors: kind == .change ? list : [], id: id,
                successors: kind == .document ? list : [],
                expand: expands?[row] ?? false, markName: markNames?[row] ?? nil))
        }
        return ops
    }
}

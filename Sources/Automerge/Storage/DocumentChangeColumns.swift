/// The change columns of a document chunk: one row of metadata per change.
///
/// | spec | column | written |
/// |---|---|---|
/// | 1 | author (actor index) | always |
/// | 3 | seq (delta) | always |
/// | 19 | maxOp (delta) | always |
/// | 35 | time (delta) | always, even all zero |
/// | 53 | message (string; id 3, not the spec table's 2) | omitted if all null |
/// | 64 | dependency count (group) | always |
/// | 67 | dependency row indices (delta) | omitted if no deps at all |
/// | 86 / 87 | extra bytes, typed as bytes (so "none" is meta 7) | meta always / raw if any |
///
/// Rust checks the time, message and extra-metadata columns for canonical
/// RLE; the others it reads leniently.
enum DocumentChangeColumns {
    // MARK: Encoding

    static func encode(_ rows: [StoredChangeMetadata]) -> [(ColumnSpec, [UInt8])] {
        var writer = Writer()
        for row in rows {
            writer.append(actor: row.actor, sequence: row.sequence, maxOp: row.maxOp, time: row.time,
                          message: row.message, dependencies: row.dependencies, extraBytes: row.extraBytes)
        }
        return writer.finish()
    }

    /// The change columns written row by row, for a caller whose rows are
    /// not ``StoredChangeMetadata`` values (a document's history: building
    /// them cost an array per change).
    struct Writer {
        private var actor = RLEEncoder<UInt64>()
        private var seq = DeltaEncoder(), maxOp = DeltaEncoder(), time = DeltaEncoder()
        private var message = RLEEncoder<String>()
        private var depCount = RLEEncoder<UInt64>(), deps = DeltaEncoder()
        /// The extra bytes as Rust writes them: every row typed as bytes, so
        /// a row without extra bytes is the metadata value 7.
        private var extraMeta = RLEEncoder<UInt64>(), extraRaw: [UInt8] = []

        /// Adds a change's row; `dependencies` are row indices of earlier changes.
        mutating func append(
            actor: Int, sequence: UInt64, maxOp: UInt64, time: Int64, message: String?,
            dependencies: some Collection<Int>, extraBytes: some Collection<UInt8>
        ) {
            self.actor.appendValue(UInt64(actor))
            seq.append(Int64(truncatingIfNeeded: sequence))
            self.maxOp.append(Int64(truncatingIfNeeded: maxOp))
            self.time.append(time)
            self.message.append(message)
            depCount.appendValue(UInt64(dependencies.count))
            for dependency in dependencies { deps.append(Int64(dependency)) }
            extraMeta.appendValue(UInt64(extraBytes.count) << 4 | ValueColumn.TypeCode.bytes)
            extraRaw.append(contentsOf: extraBytes)
        }

        /// The columns, in the order a document chunk lists them.
        mutating func finish() -> [(ColumnSpec, [UInt8])] {
            [
                (.changeActor, actor.finish()), (.changeSeq, seq.finish()), (.changeMaxOp, maxOp.finish()),
                (.changeTime, time.finish()), (.changeMessage, message.finish()),
                (.changeDepsGroup, depCount.finish()), (.changeDeps, deps.finish()),
                (.changeExtraMeta, extraMeta.finish()), (.changeExtra, extraRaw),
            ]
        }
    }

    // MARK: Decoding

    /// Decodes the change rows. The number of rows is the length of the
    /// author column; every present column must match it.
    static func decode(_ columns: ColumnSet, actorCount: Int, rowLimit: Int) throws(LoadError) -> [StoredChangeMetadata] {
        func check(canonical: Bool, nullable: Bool) -> ColumnCheck {
            ColumnCheck(canonical: canonical, nullable: nullable, limit: rowLimit)
        }
        let lenient = check(canonical: false, nullable: false)

        let actors = try columns[.changeActor].map { (d) throws(LoadError) in
            try RLEColumn.decode(d, as: UInt64.self, column: "change actor", check: lenient)
        } ?? []
        let rows = actors.count
        func sized<T: Collection>(_ values: T?, _ name: String, required: Bool) throws(LoadError) -> T? {
            if let values, values.count != rows {
                throw .columnLengthMismatch(column: name, expected: rows, actual: values.count)
            }
            if values == nil && required && rows > 0 { throw .missingColumn(column: name) }
            return values
        }
        /// A delta column's values and its first null row (see ``DeltaColumn/decodeValues(_:column:check:expectedCount:)``).
        struct Values {
            var values: [Int64]
            var firstNull: Int?
            var count: Int { values.count }

            /// The value of `row`, nil where it is null.
            @inline(__always)
            func value(at row: Int) -> Int64? { row == firstNull ? nil : values[row] }
        }
        func delta(_ spec: ColumnSpec, _ name: String, _ check: ColumnCheck, expectedCount: Int) throws(LoadError) -> Values? {
            guard let data = columns[spec] else { return nil }
            let (values, firstNull) = try DeltaColumn.decodeValues(data, column: name, check: check, expectedCount: expectedCount)
            return Values(values: values, firstNull: firstNull)
        }
        func sized(_ values: Values?, _ name: String, required: Bool) throws(LoadError) -> Values? {
            _ = try sized(values?.values, name, required: required)
            return values
        }

        let seqs = try sized(delta(.changeSeq, "change seq", lenient, expectedCount: rows), "change seq", required: true)
        let maxOps = try sized(delta(.changeMaxOp, "change max op", lenient, expectedCount: rows), "change max op", required: true)
        let times = try sized(delta(.changeTime, "change time", check(canonical: true, nullable: false), expectedCount: rows),
                              "change time", required: false)
        let messages = try sized(columns[.changeMessage].map { (d) throws(LoadError) in
            try RLEColumn.decode(d, as: String.self, column: "change message", check: check(canonical: true, nullable: true))
        }, "change message", required: false)
        let depCounts = try sized(columns[.changeDepsGroup].map { (d) throws(LoadError) in
            try RLEColumn.decode(d, as: UInt64.self, column: "change deps group", check: lenient)
        }, "change deps group", required: false)
        let deps = try delta(.changeDeps, "change deps", lenient, expectedCount: rows) ?? Values(values: [], firstNull: nil)
        // Every row's dependencies, end to end, converted before any row
        // takes a slice of them (each row holds a slice rather than an
        // array of its own: 262k allocations in a long history). The loop
        // below checks each before its row takes it.
        let dependencyRows = deps.values.map { Int(truncatingIfNeeded: $0) }
        let extras = try ValueColumn.decodeExtraBytes(
            meta: columns[.changeExtraMeta], raw: columns[.changeExtra], rows: rows, column: "change extra",
            check: check(canonical: true, nullable: false))

        var result = [StoredChangeMetadata]()
        result.reserveCapacity(rows)
        var depIndex = 0
        for row in 0..<rows {
            guard let actor = actors[row] else { throw .unexpectedNull(column: "change actor", row: row) }
            guard actor < UInt64(actorCount) else {
                throw .actorIndexOutOfRange(column: "change actor", row: row, index: actor)
            }
            guard let seq = seqs?.value(at: row) else { throw .unexpectedNull(column: "change seq", row: row) }
            guard seq >= 0 else { throw .invalidValue(column: "change seq", row: row, reason: "negative") }
            guard let maxOp = maxOps?.value(at: row) else { throw .unexpectedNull(column: "change max op", row: row) }
            guard maxOp >= 0 && maxOp <= Int64(UInt32.max) else {
                throw .opCounterOverflow(column: "change max op", row: row)
            }
            let time: Int64
            if let times {
                guard let t = times.value(at: row) else { throw .unexpectedNull(column: "change time", row: row) }
                time = t
            } else {
                time = 0
            }
            let rowDepsStart = depIndex
            if let depCounts {
                guard let count = depCounts[row] else { throw .unexpectedNull(column: "change deps group", row: row) }
                guard count <= UInt64(deps.count - depIndex) else {
                    let needed = UInt64(depIndex).addingReportingOverflow(count)
                    throw .columnLengthMismatch(column: "change deps",
                                                expected: needed.overflow ? Int.max : Int(clamping: needed.partialValue),
                                                actual: deps.count)
                }
                for _ in 0..<count {
                    guard let dep = deps.value(at: depIndex) else { throw .unexpectedNull(column: "change deps", row: row) }
                    guard dep >= 0 && dep < Int64(row) else {
                        throw .dependencyOutOfRange(row: row, index: UInt64(bitPattern: dep))
                    }
                    depIndex += 1
                }
            }
            result.append(StoredChangeMetadata(
                actor: Int(actor), sequence: UInt64(seq), maxOp: UInt64(maxOp), time: time,
                message: messages?[row] ?? nil, dependencies: dependencyRows[rowDepsStart..<depIndex], extraBytes: extras[row]))
        }
        guard depIndex == deps.count else {
            throw .columnLengthMismatch(column: "change deps", expected: depIndex, actual: deps.count)
        }
        try validateGraph(result, actorCount: actorCount)
        return result
    }

    /// The change-graph rules Rust checks on load: each actor's changes are
    /// numbered 1, 2, 3... in row order, and a change's maxOp is at least
    /// that of the actor's previous change and of each of its dependencies.
    /// `rows` are ``decode(_:actorCount:rowLimit:)``'s, whose loop checked
    /// that each actor index is below `actorCount` and each dependency names
    /// an earlier row (asserted again in debug builds).
    private static func validateGraph(_ rows: [StoredChangeMetadata], actorCount: Int) throws(LoadError) {
        // Rows are read in place: a copy of each retained its arrays and strings.
        try rows.withUnsafeBufferPointer { rows throws(LoadError) in
            var lastSeq = [UInt64](repeating: 0, count: actorCount)
            var lastMaxOp = [UInt64](repeating: 0, count: actorCount)
            for index in rows.indices {
                let actor = rows[index].actor, sequence = rows[index].sequence, maxOp = rows[index].maxOp
                assert(actor >= 0 && actor < actorCount && rows[index].dependencies.allSatisfy { $0 >= 0 && $0 < index })
                guard sequence < UInt64.max && sequence == lastSeq[actor] + 1 else { throw .changesOutOfOrder(row: index) }
                lastSeq[actor] = sequence
                guard maxOp >= lastMaxOp[actor] else { throw .incorrectMaxOp(row: index) }
                lastMaxOp[actor] = maxOp
                for dep in rows[index].dependencies where rows[dep].maxOp > maxOp { throw .incorrectMaxOp(row: index) }
            }
        }
    }
}

@_spi(Conformance) @testable import Automerge

/// Small hand-made documents and changes used by the storage tests.
enum StorageSamples {
    static let actorA = ActorId(uncheckedBytes: [0xaa, 0x01])
    static let actorB = ActorId(uncheckedBytes: [0xbb, 0x02])

    static func id(_ counter: UInt64, _ actor: Int) -> StoredOpId { StoredOpId(counter: counter, actor: actor) }

    static func op(
        object: StoredOpId? = nil, key: StoredKey, insert: Bool = false, action: UInt64, value: Primitive = .null,
        predecessors: StoredOpIdList = [], id: StoredOpId? = nil, successors: StoredOpIdList = [],
        expand: Bool = false, markName: String? = nil
    ) -> StoredOp {
        StoredOp(object: object, key: key, insert: insert, action: action, value: value, predecessors: predecessors,
                 id: id, successors: successors, expand: expand, markName: markName)
    }

    /// Two actors. A (index 0) makes a list at "list" and sets "x" = 1; B
    /// (index 1), after A, overwrites "x" with "y", inserts 7 into the list
    /// and deletes it again (a delete, so only a successor in the document).
    static var document: StoredDocument {
        var doc = StoredDocument(
            actors: [actorA, actorB],
            heads: [],
            changes: [
                StoredChangeMetadata(actor: 0, sequence: 1, maxOp: 2, time: 0, message: nil, dependencies: [],
                                     extraBytes: []),
                StoredChangeMetadata(actor: 1, sequence: 1, maxOp: 5, time: 1_700_000_000, message: "hi",
                                     dependencies: [0], extraBytes: []),
            ],
            ops: [
                op(key: .map("list"), action: 2, id: id(1, 0)),
                op(key: .map("x"), action: 1, value: .int(1), id: id(2, 0), successors: [id(3, 1)]),
                op(key: .map("x"), action: 1, value: .string("y"), id: id(3, 1)),
                op(object: id(1, 0), key: .element(nil), insert: true, action: 1, value: .uint(7), id: id(4, 1),
                   successors: [id(5, 1)]),
            ],
            headsIndex: [1])
        let changes = try! ChangeReconstruction.reconstruct(doc, verifyHeads: false)
        doc.heads = [changes[1].hash]
        return doc
    }

    /// A change by B with ops that mention A, several predecessors and a mark.
    static var change: StoredChange {
        StoredChange(
            dependencies: [ChangeHash(bytes: [UInt8](repeating: 0x11, count: 32))],
            actors: [actorB, actorA],
            sequence: 2,
            startOp: 10,
            time: -5,
            message: "edit",
            ops: [
                op(key: .map("k"), action: 1, value: .counter(3), predecessors: [id(4, 1), id(4, 0)]),
                op(object: id(2, 1), key: .element(nil), insert: true, action: 4),
                op(object: id(11, 0), key: .element(id(11, 0)), insert: true, action: 7, value: .bool(true),
                   expand: true, markName: "bold"),
                op(object: id(2, 1), key: .map("n"), action: 5, value: .int(-2), predecessors: [id(10, 0)]),
            ],
            extraBytes: [0xde, 0xad])
    }

    /// The uncompressed chunk of ``document``.
    static var documentBytes: [UInt8] { DocumentChunk.encode(document, compress: false) }

    /// The chunk of ``change``.
    static var changeBytes: [UInt8] { ChangeChunk.encode(change).bytes }

    /// A change chunk with hand-written column metadata and data, for
    /// inputs our encoder would never produce.
    static func rawChange(
        startOp: UInt64 = 1, others: [ActorId] = [], message: [UInt8] = [],
        columns: [(spec: UInt32, bytes: [UInt8])]
    ) -> [UInt8] {
        var contents: [UInt8] = [0]  // no deps
        contents.appendLengthPrefixed(actorA.bytes)
        LEB128.appendUnsigned(1, to: &contents)
        LEB128.appendUnsigned(startOp, to: &contents)
        LEB128.appendSigned(0, to: &contents)
        contents.appendLengthPrefixed(message)
        LEB128.appendUnsigned(UInt64(others.count), to: &contents)
        for actor in others { contents.appendLengthPrefixed(actor.bytes) }
        LEB128.appendUnsigned(UInt64(columns.count), to: &contents)
        for column in columns {
            LEB128.appendUnsigned(UInt64(column.spec), to: &contents)
            LEB128.appendUnsigned(UInt64(column.bytes.count), to: &contents)
        }
        for column in columns { contents += column.bytes }
        return ChunkFraming.frame(type: .change, contents: contents).bytes
    }

    /// Column data for one op at the root: key "k", action `action`, value `meta`/`raw`.
    static func oneOpColumns(action: UInt64 = 1, meta: UInt64 = 0, raw: [UInt8] = [],
                             extra: [(spec: UInt32, bytes: [UInt8])] = []) -> [(spec: UInt32, bytes: [UInt8])] {
        var actionBytes: [UInt8] = [0x7f]
        LEB128.appendUnsigned(action, to: &actionBytes)
        var metaBytes: [UInt8] = [0x7f]
        LEB128.appendUnsigned(meta, to: &metaBytes)
        var columns: [(spec: UInt32, bytes: [UInt8])] = [
            (21, [0x7f, 0x01, 0x6b]), (52, [0x01]), (66, actionBytes), (86, metaBytes),
        ]
        if !raw.isEmpty { columns.append((87, raw)) }
        columns.append((112, [0x7f, 0x00]))
        return (columns + extra).sorted { ($0.spec & ~8) < ($1.spec & ~8) }
    }

    /// Decodes a single-chunk file.
    static func decodeChange(_ bytes: [UInt8]) throws(LoadError) -> StoredChange {
        let chunks = try ChunkFraming.split(bytes)
        return try ChangeChunk.decode(chunks[0])
    }

    static func decodeDocument(_ bytes: [UInt8]) throws(LoadError) -> StoredDocument {
        let chunks = try ChunkFraming.split(bytes)
        return try DocumentChunk.decode(chunks[0])
    }
}

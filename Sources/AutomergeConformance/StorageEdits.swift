import Automerge
import Foundation

/// Byte-level constructions the public API cannot make: documents with
/// legacy tables, empty changes, changes with extra bytes, and the
/// column-level edits the invalid vectors are made of.
enum Storage {
    /// The document's changes as uncompressed (type 1) chunks, in history order.
    static func uncompressedChanges(_ doc: Document) -> [[UInt8]] {
        let all = (try? doc.encodeChangesSince(heads: [])) ?? Data()
        return (RawChunk.split([UInt8](all)) ?? []).map(\.bytes)
    }

    /// A change chunk with no ops.
    static func emptyChange(actor: [UInt8], sequence: UInt64, startOp: UInt64, time: Int64, message: String) -> [UInt8] {
        let layout = ChangeLayout(
            dependencies: [], actor: actor, sequence: sequence, startOp: startOp, time: time,
            message: Array(message.utf8), otherActors: [], columns: [], extraBytes: [])
        return RawChunk(type: 1, contents: layout.contents).bytes
    }

    /// `change` (one uncompressed chunk) with `extra` after its columns.
    static func withExtraBytes(_ change: [UInt8], _ extra: [UInt8]) throws -> [UInt8] {
        try editChange(change) { $0.extraBytes = extra }
    }

    /// Applies `edit` to the layout of one uncompressed change chunk and reseals it.
    static func editChange(_ change: [UInt8], _ edit: (inout ChangeLayout) throws -> Void) throws -> [UInt8] {
        guard let chunk = RawChunk.split(change)?.first, chunk.type == 1,
              var (layout, _) = ChangeLayout.parse(chunk.contents) else {
            throw VectorError.generator("not a change chunk")
        }
        try edit(&layout)
        return RawChunk(type: 1, contents: layout.contents).bytes
    }

    /// Applies `edit` to the layout of a file's leading document chunk and reseals it.
    static func editDocument(_ file: [UInt8], _ edit: (inout DocumentLayout) throws -> Void) throws -> [UInt8] {
        guard var chunks = RawChunk.split(file), let first = chunks.first, first.type == 0,
              var (layout, _) = DocumentLayout.parse(first.contents) else {
            throw VectorError.generator("not a document")
        }
        try edit(&layout)
        chunks[0] = RawChunk(type: 0, contents: layout.contents)
        return chunks.flatMap(\.bytes)
    }

    /// Replaces the data of the column with `spec` (an error if absent).
    static func editColumn(_ columns: inout [RawColumn], _ spec: UInt64, _ edit: (inout [UInt8]) throws -> Void) throws {
        guard let index = columns.firstIndex(where: { $0.spec == spec }) else {
            throw VectorError.generator("no column \(spec)")
        }
        try edit(&columns[index].data)
    }

    /// Rewrites the values of an RLE or delta integer column.
    static func editValues(_ columns: inout [RawColumn], _ spec: UInt64, _ edit: (inout [Int64?]) throws -> Void) throws {
        let type = spec & 7
        try editColumn(&columns, spec) { data in
            guard var values = type == 3 ? ColumnCodec.decodeDelta(data) : ColumnCodec.decodeRLE(data, signed: false) else {
                throw VectorError.generator("column \(spec) does not decode")
            }
            try edit(&values)
            data = type == 3 ? ColumnCodec.encodeDelta(values) : ColumnCodec.encodeRLE(values, signed: false)
        }
    }

    /// A document whose change chunks have every op action `from` replaced by
    /// `to` (dependency hashes rewritten to match), loaded and saved again.
    static func patchActions(of doc: Document, from: Int64, to: Int64) throws -> Data {
        let changes = try rewriteChanges(uncompressedChanges(doc)) { layout in
            try editValues(&layout.columns, 66) { values in values = values.map { $0 == from ? to : $0 } }
        }
        return try Document(Data(changes.joined())).save()
    }

    /// Applies `edit` to each change (uncompressed chunks, in history order)
    /// and rewrites the dependency hashes of later changes to match.
    static func rewriteChanges(_ changes: [[UInt8]], _ edit: (inout ChangeLayout) throws -> Void) throws -> [[UInt8]] {
        var renamed: [[UInt8]: [UInt8]] = [:]
        return try changes.map { change in
            let oldHash = RawChunk.digest(type: 1, contents: RawChunk.split(change)![0].contents)
            let patched = try editChange(change) { layout in
                layout.dependencies = layout.dependencies.map { renamed[$0] ?? $0 }.sorted { $0.lexicographicallyPrecedes($1) }
                try edit(&layout)
            }
            renamed[oldHash] = RawChunk.digest(type: 1, contents: RawChunk.split(patched)![0].contents)
            return patched
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why bytes could not be read as Automerge chunks.
///
/// Every rejection of untrusted input by the storage layer is one of these
/// cases: the decoders never trap, never allocate more than the input can
/// justify, and never take more than linear time. Cases carry where the
/// problem was found (a column name, a row, a chunk index) when that is known;
/// ``inChunk(_:_:)`` wraps an error with the index of the chunk it came from.
public enum LoadError: Error, Equatable, Sendable, CustomStringConvertible {
    // MARK: Framing

    /// A chunk did not start with the magic bytes `85 6F 4A 83`.
    case badMagic
    /// The checksum in a chunk header does not match its contents.
    case badChecksum
    /// A chunk type byte other than 0, 1, 2 or 3.
    case unknownChunkType(UInt8)
    /// A chunk type that is valid but that this implementation does not read
    /// (type 3, Rust's experimental bundle).
    case unsupportedChunkType(UInt8)
    /// The chunk was not the kind the caller asked to decode.
    case unexpectedChunkType(expected: UInt8, found: UInt8)
    /// A compressed change chunk's checksum differs from the checksum of the
    /// change chunk it inflates to.
    case compressedChecksumMismatch
    /// Bytes left over after a structure that must end exactly at its end.
    case trailingBytes(what: String)

    // MARK: Primitive encodings

    /// The input ended in the middle of `what`.
    case truncated(what: String)
    /// A LEB128 number in a strictly parsed place used more bytes than needed.
    case overlongLEB128(what: String)
    /// A LEB128 number does not fit in 64 bits (or in 32 where the format
    /// says so).
    case leb128TooLarge(what: String)
    /// A length field claims more bytes than remain.
    case lengthPastEnd(what: String, length: UInt64, remaining: Int)
    /// A string that is not valid UTF-8.
    case invalidUTF8(what: String)
    /// A raw DEFLATE stream that does not inflate.
    case invalidDeflate(what: String)
    /// A DEFLATE stream inflates to more than the decoder allows.
    case inflatedTooLarge(what: String, limit: Int)

    // MARK: Column layout

    /// Column specifications not sorted by spec (deflate bit masked).
    case columnsOutOfOrder(section: String)
    /// The same column specification appears twice.
    case duplicateColumn(section: String, spec: UInt32)
    /// A raw value column without its value metadata column just before it.
    case loneValueColumn(section: String, spec: UInt32)
    /// A deflated column inside a change chunk.
    case compressedColumnInChange
    /// A column the format requires is absent although there are rows.
    case missingColumn(column: String)

    // MARK: Column data

    /// A column that Rust validates is not in Rust's canonical form.
    case nonCanonicalColumn(column: String, reason: String)
    /// A null where the column does not allow one.
    case unexpectedNull(column: String, row: Int)
    /// A column holds a different number of items than the other columns.
    case columnLengthMismatch(column: String, expected: Int, actual: Int)
    /// A column claims more rows than the decoder allows for this input.
    case tooManyRows(column: String, limit: Int)
    /// A value that is out of its column's domain (negative sequence
    /// numbers, a float whose length is not 8, ...).
    case invalidValue(column: String, row: Int, reason: String)
    /// A key that is neither a map key, HEAD nor an element id.
    case invalidKey(row: Int, reason: String)
    /// An object id with only one of its actor and counter.
    case invalidObjectId(row: Int)
    /// An action code above 7.
    case unknownAction(row: Int, action: UInt64)
    /// An increment whose value is not an int or uint.
    case nonNumericIncrement(row: Int)
    /// An actor index past the end of the actor table.
    case actorIndexOutOfRange(column: String, row: Int, index: UInt64)
    /// An op counter outside 1...UInt32.max (Rust keeps counters in 32 bits).
    case opCounterOverflow(column: String, row: Int)
    /// A change's start op is 0 or above UInt32.max.
    case startOpOutOfRange(UInt64)

    // MARK: Change graph

    /// An actor's changes are not numbered 1, 2, 3... in change-row order.
    case changesOutOfOrder(row: Int)
    /// A change's maxOp is below an earlier change of its actor or below a
    /// dependency's.
    case incorrectMaxOp(row: Int)
    /// A dependency index that does not name an earlier change row.
    case dependencyOutOfRange(row: Int, index: UInt64)
    /// Two ops in a document share an id.
    case duplicateOpId(row: Int)
    /// An op whose id falls in no change of its actor.
    case opOutsideChanges(row: Int)
    /// A change whose ops, sorted by counter, have a gap or do not end at its maxOp.
    case missingOps(change: Int)
    /// A successor that no op holds and whose predecessors disagree on the
    /// object or key it deletes.
    case inconsistentDelete(row: Int)
    /// The heads derived from the reconstructed changes are not the stored heads.
    case headsMismatch(stored: [ChangeHash], computed: [ChangeHash])
    /// A mark's end anchor comes before its begin anchor, or lies in another
    /// object (Rust 0.11 rejects such documents; 0.5 loaded them).
    case markEndBeforeBegin(row: Int)

    /// An error found in the chunk with the given index (0-based) of a file.
    indirect case inChunk(Int, LoadError)

    /// The error without any ``inChunk(_:_:)`` context.
    public var underlying: LoadError {
        if case let .inChunk(_, inner) = self { return inner.underlying }
        return self
    }

    public var description: String {
        switch self {
        case .badMagic: return "bad magic bytes"
        case .badChecksum: return "checksum mismatch"
        case .unknownChunkType(let t): return "unknown chunk type \(t)"
        case .unsupportedChunkType(let t): return "unsupported chunk type \(t) (bundle)"
        case let .unexpectedChunkType(expected, found): return "expected chunk type \(expected), found \(found)"
        case .compressedChecksumMismatch: return "compressed change checksum does not match its contents"
        case .trailingBytes(let what): return "trailing bytes after \(what)"
        case .truncated(let what): return "input ends inside \(what)"
        case .overlongLEB128(let what): return "overlong LEB128 in \(what)"
        case .leb128TooLarge(let what): return "LEB128 too large in \(what)"
        case let .lengthPastEnd(what, length, remaining):
            return "\(what) claims \(length) bytes but only \(remaining) remain"
        case .invalidUTF8(let what): return "invalid UTF-8 in \(what)"
        case .invalidDeflate(let what): return "corrupt deflate stream in \(what)"
        case let .inflatedTooLarge(what, limit): return "\(what) inflates to more than \(limit) bytes"
        case .columnsOutOfOrder(let section): return "\(section) columns not in normalized order"
        case let .duplicateColumn(section, spec): return "duplicate \(section) column \(spec)"
        case let .loneValueColumn(section, spec): return "\(section) value column \(spec) without metadata"
        case .compressedColumnInChange: return "change chunk contains compressed columns"
        case .missingColumn(let column): return "missing column \(column)"
        case let .nonCanonicalColumn(column, reason): return "non-canonical column \(column): \(reason)"
        case let .unexpectedNull(column, row): return "unexpected null in column \(column) at row \(row)"
        case let .columnLengthMismatch(column, expected, actual):
            return "column \(column) has \(actual) items, expected \(expected)"
        case let .tooManyRows(column, limit): return "column \(column) has more than \(limit) items"
        case let .invalidValue(column, row, reason): return "invalid value in column \(column) at row \(row): \(reason)"
        case let .invalidKey(row, reason): return "invalid key at row \(row): \(reason)"
        case .invalidObjectId(let row): return "invalid object id at row \(row)"
        case let .unknownAction(row, action): return "unknown action \(action) at row \(row)"
        case .nonNumericIncrement(let row): return "non-numeric increment at row \(row)"
        case let .actorIndexOutOfRange(column, row, index):
            return "actor index \(index) out of range in column \(column) at row \(row)"
        case let .opCounterOverflow(column, row): return "op counter out of range in column \(column) at row \(row)"
        case .startOpOutOfRange(let v): return "start op \(v) out of range"
        case .changesOutOfOrder(let row): return "changes out of order at change row \(row)"
        case .incorrectMaxOp(let row): return "incorrect max op at change row \(row)"
        case let .dependencyOutOfRange(row, index): return "change row \(row) depends on invalid row \(index)"
        case .duplicateOpId(let row): return "duplicate op id at row \(row)"
        case .opOutsideChanges(let row): return "op at row \(row) belongs to no change"
        case .missingOps(let change): return "missing ops in change row \(change)"
        case .inconsistentDelete(let row): return "inconsistent delete successor at row \(row)"
        case let .headsMismatch(stored, computed):
            return "heads mismatch: stored \(stored.map(\.description)), computed \(computed.map(\.description))"
        case .markEndBeforeBegin(let row): return "invalid mark operation order: mark end occurs before mark begin (op row \(row))"
        case let .inChunk(index, inner): return "chunk \(index): \(inner)"
        }
    }
}

extension LoadError: LocalizedError {
    /// The readable explanation (``description``).
    public var errorDescription: String? { description }
}

@_spi(Conformance) import Automerge
import Crypto

/// A small, independent reader and writer of the Automerge chunk layout,
/// down to the column level but no further. The conformance tooling uses it
/// to take files apart (to corrupt one column or header field at a time for
/// the invalid vectors, or to compare the op columns of two saves) without
/// going through the implementation under test.
public enum Bytes {
    /// `value` as unsigned LEB128.
    public static func uleb(_ value: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        var v = value
        repeat {
            var byte = UInt8(v & 0x7F)
            v >>= 7
            if v != 0 { byte |= 0x80 }
            out.append(byte)
        } while v != 0
        return out
    }

    /// The unsigned LEB128 number at `position` in `bytes`, moving past it;
    /// nil if the bytes end first or it runs past 64 bits.
    public static func uleb<C: RandomAccessCollection<UInt8>>(in bytes: C, at position: inout Int) -> UInt64? where C.Index == Int {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.endIndex, shift < 64 {
            let byte = bytes[position]
            position += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
        return nil
    }

    /// `value` as signed LEB128.
    public static func sleb(_ value: Int64) -> [UInt8] {
        var out: [UInt8] = []
        var v = value
        while true {
            let byte = UInt8(truncatingIfNeeded: v & 0x7F)
            v >>= 7
            if (v == 0 && byte & 0x40 == 0) || (v == -1 && byte & 0x40 != 0) {
                out.append(byte)
                return out
            }
            out.append(byte | 0x80)
        }
    }

    /// `bytes` as lowercase hex digits.
    public static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    /// Bytes from hex digits (either case); nil if `text` is not hex.
    public static func fromHex(_ text: Substring) -> [UInt8]? { Hex.decode(text) }

    /// The SHA-256 digest of `bytes`.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }

    /// A persisted sync state (`43`, a count, the hashes in order) whose
    /// shared heads are `heads`: what a peer that once synced to `heads` keeps.
    public static func syncState(sharedHeads heads: Set<ChangeHash>) -> [UInt8] {
        heads.sorted().reduce([0x43] + uleb(UInt64(heads.count))) { $0 + $1.bytes }
    }
}

/// A cursor over bytes that fails with `nil` rather than trapping.
struct ByteCursor {
    let bytes: [UInt8]
    var position: Int

    init(_ bytes: [UInt8], position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func uleb() -> UInt64? { Bytes.uleb(in: bytes, at: &position) }

    mutating func sleb() -> Int64? {
        var result: Int64 = 0
        var shift: Int64 = 0
        while position < bytes.count, shift < 64 {
            let byte = bytes[position]
            position += 1
            result |= Int64(byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0 {
                if shift < 64 && byte & 0x40 != 0 { result |= -1 << shift }
                return result
            }
        }
        return nil
    }

    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, count <= bytes.count - position else { return nil }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    mutating func lengthPrefixed() -> [UInt8]? {
        guard let length = uleb(), length <= UInt64(Int.max) else { return nil }
        return take(Int(length))
    }
}

/// One chunk of a file: type, checksum as stored, contents.
public struct RawChunk: Equatable, Sendable {
    public var type: UInt8
    public var checksum: [UInt8]
    public var contents: [UInt8]

    public static let magic: [UInt8] = [0x85, 0x6F, 0x4A, 0x83]

    public init(type: UInt8, checksum: [UInt8], contents: [UInt8]) {
        self.type = type
        self.checksum = checksum
        self.contents = contents
    }

    /// A chunk whose checksum is right for its type and contents.
    public init(type: UInt8, contents: [UInt8]) {
        self.init(type: type, checksum: Array(RawChunk.digest(type: type, contents: contents).prefix(4)), contents: contents)
    }

    /// SHA-256(type ‖ uLEB(length) ‖ contents): the change hash for type 1.
    public static func digest(type: UInt8, contents: [UInt8]) -> [UInt8] {
        Bytes.sha256([type] + Bytes.uleb(UInt64(contents.count)) + contents)
    }

    /// The chunk as bytes.
    public var bytes: [UInt8] {
        RawChunk.magic + checksum + [type] + Bytes.uleb(UInt64(contents.count)) + contents
    }

    /// Recomputes the checksum after an edit of the contents.
    public mutating func reseal() {
        checksum = Array(RawChunk.digest(type: type, contents: contents).prefix(4))
    }

    /// Splits well-framed bytes into chunks (no checksum check); nil if the framing is broken.
    public static func split(_ bytes: [UInt8]) -> [RawChunk]? {
        var cursor = ByteCursor(bytes)
        var chunks: [RawChunk] = []
        while !cursor.isAtEnd {
            guard let magic = cursor.take(4), magic == RawChunk.magic, let checksum = cursor.take(4),
                  let type = cursor.take(1), let contents = cursor.lengthPrefixed() else { return nil }
            chunks.append(RawChunk(type: type[0], checksum: checksum, contents: contents))
        }
        return chunks
    }
}

/// A column as a chunk stores it: its specification and bytes.
public struct RawColumn: Equatable, Sendable {
    public var spec: UInt64
    public var data: [UInt8]
    public init(spec: UInt64, data: [UInt8]) {
        self.spec = spec
        self.data = data
    }
}

/// Where each section of a chunk starts, for truncation at a chosen section.
public struct SectionOffsets: Sendable {
    public var sections: [(name: String, offset: Int)] = []
}

/// The fields of a document chunk's contents.
public struct DocumentLayout: Equatable, Sendable {
    public var actors: [[UInt8]]
    public var heads: [[UInt8]]
    public var changeColumns: [RawColumn]
    public var opColumns: [RawColumn]
    /// Everything after the column data (the heads index).
    public var trailer: [UInt8]

    /// Parses document chunk contents; nil if they are malformed.
    public static func parse(_ contents: [UInt8]) -> (DocumentLayout, SectionOffsets)? {
        var cursor = ByteCursor(contents)
        var offsets = SectionOffsets()
        offsets.sections.append(("actors", cursor.position))
        guard let actorCount = cursor.uleb(), actorCount < 1 << 20 else { return nil }
        var actors: [[UInt8]] = []
        for _ in 0..<actorCount {
            guard let actor = cursor.lengthPrefixed() else { return nil }
            actors.append(actor)
        }
        offsets.sections.append(("heads", cursor.position))
        guard let headCount = cursor.uleb(), headCount < 1 << 20 else { return nil }
        var heads: [[UInt8]] = []
        for _ in 0..<headCount {
            guard let head = cursor.take(32) else { return nil }
            heads.append(head)
        }
        offsets.sections.append(("change column metadata", cursor.position))
        guard let changeMeta = readMetadata(&cursor) else { return nil }
        offsets.sections.append(("op column metadata", cursor.position))
        guard let opMeta = readMetadata(&cursor) else { return nil }
        offsets.sections.append(("change column data", cursor.position))
        guard let changeColumns = readData(changeMeta, &cursor) else { return nil }
        offsets.sections.append(("op column data", cursor.position))
        guard let opColumns = readData(opMeta, &cursor) else { return nil }
        offsets.sections.append(("heads index", cursor.position))
        let trailer = Array(contents[cursor.position...])
        return (DocumentLayout(actors: actors, heads: heads, changeColumns: changeColumns, opColumns: opColumns, trailer: trailer), offsets)
    }

    public var contents: [UInt8] {
        var out = Bytes.uleb(UInt64(actors.count))
        for actor in actors { out += Bytes.uleb(UInt64(actor.count)) + actor }
        out += Bytes.uleb(UInt64(heads.count))
        for head in heads { out += head }
        out += writeMetadata(changeColumns) + writeMetadata(opColumns)
        for column in changeColumns + opColumns { out += column.data }
        return out + trailer
    }
}

/// The fields of a change chunk's contents.
public struct ChangeLayout: Equatable, Sendable {
    public var dependencies: [[UInt8]]
    public var actor: [UInt8]
    public var sequence: UInt64
    public var startOp: UInt64
    public var time: Int64
    public var message: [UInt8]
    public var otherActors: [[UInt8]]
    public var columns: [RawColumn]
    public var extraBytes: [UInt8]

    /// Parses change chunk contents; nil if they are malformed.
    public static func parse(_ contents: [UInt8]) -> (ChangeLayout, SectionOffsets)? {
        var cursor = ByteCursor(contents)
        var offsets = SectionOffsets()
        offsets.sections.append(("dependencies", cursor.position))
        guard let depCount = cursor.uleb(), depCount < 1 << 20 else { return nil }
        var deps: [[UInt8]] = []
        for _ in 0..<depCount {
            guard let dep = cursor.take(32) else { return nil }
            deps.append(dep)
        }
        offsets.sections.append(("actor", cursor.position))
        guard let actor = cursor.lengthPrefixed() else { return nil }
        offsets.sections.append(("seq", cursor.position))
        guard let sequence = cursor.uleb() else { return nil }
        offsets.sections.append(("start op", cursor.position))
        guard let startOp = cursor.uleb() else { return nil }
        offsets.sections.append(("time", cursor.position))
        guard let time = cursor.sleb() else { return nil }
        offsets.sections.append(("message", cursor.position))
        guard let message = cursor.lengthPrefixed() else { return nil }
        offsets.sections.append(("other actors", cursor.position))
        guard let otherCount = cursor.uleb(), otherCount < 1 << 20 else { return nil }
        var others: [[UInt8]] = []
        for _ in 0..<otherCount {
            guard let other = cursor.lengthPrefixed() else { return nil }
            others.append(other)
        }
        offsets.sections.append(("op column metadata", cursor.position))
        guard let meta = readMetadata(&cursor) else { return nil }
        offsets.sections.append(("op column data", cursor.position))
        guard let columns = readData(meta, &cursor) else { return nil }
        offsets.sections.append(("extra bytes", cursor.position))
        let layout = ChangeLayout(
            dependencies: deps, actor: actor, sequence: sequence, startOp: startOp, time: time, message: message,
            otherActors: others, columns: columns, extraBytes: Array(contents[cursor.position...]))
        return (layout, offsets)
    }

    public var contents: [UInt8] {
        var out = Bytes.uleb(UInt64(dependencies.count))
        for dep in dependencies { out += dep }
        out += Bytes.uleb(UInt64(actor.count)) + actor
        out += Bytes.uleb(sequence) + Bytes.uleb(startOp) + Bytes.sleb(time)
        out += Bytes.uleb(UInt64(message.count)) + message
        out += Bytes.uleb(UInt64(otherActors.count))
        for other in otherActors { out += Bytes.uleb(UInt64(other.count)) + other }
        out += writeMetadata(columns)
        for column in columns { out += column.data }
        return out + extraBytes
    }
}

private func readMetadata(_ cursor: inout ByteCursor) -> [(spec: UInt64, length: Int)]? {
    guard let count = cursor.uleb(), count < 1 << 16 else { return nil }
    var result: [(spec: UInt64, length: Int)] = []
    for _ in 0..<count {
        guard let spec = cursor.uleb(), let length = cursor.uleb(), length <= UInt64(Int32.max) else { return nil }
        result.append((spec, Int(length)))
    }
    return result
}

private func readData(_ meta: [(spec: UInt64, length: Int)], _ cursor: inout ByteCursor) -> [RawColumn]? {
    var columns: [RawColumn] = []
    for entry in meta {
        guard let data = cursor.take(entry.length) else { return nil }
        columns.append(RawColumn(spec: entry.spec, data: data))
    }
    return columns
}

private func writeMetadata(_ columns: [RawColumn]) -> [UInt8] {
    var out = Bytes.uleb(UInt64(columns.count))
    for column in columns { out += Bytes.uleb(column.spec) + Bytes.uleb(UInt64(column.data.count)) }
    return out
}

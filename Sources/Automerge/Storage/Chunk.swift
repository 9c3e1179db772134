import Crypto

/// The chunk container every Automerge file is made of.
///
/// A chunk is `85 6F 4A 83` | 4-byte checksum | type byte | uLEB length N |
/// N content bytes. The checksum is the first 4 bytes of
/// SHA-256(type ‖ uLEB(N) ‖ contents); for a change chunk that whole digest
/// is the change hash. A file is any concatenation of chunks.

/// The type byte of a chunk.
enum ChunkType: UInt8, Sendable {
    case document = 0
    case change = 1
    /// A change chunk whose contents are raw DEFLATE; its checksum is that of
    /// the uncompressed (type 1) chunk.
    case compressedChange = 2
    /// Rust's experimental bundle; not read by this implementation.
    case bundle = 3
}

/// One chunk of a file, with its checksum verified.
struct Chunk: Sendable {
    /// The position of the chunk in its file (0-based).
    let index: Int
    /// The type as stored.
    let type: ChunkType
    /// The contents: for a compressed change, the inflated contents.
    let contents: ArraySlice<UInt8>
    /// The chunk exactly as stored, header included.
    let stored: ArraySlice<UInt8>
    /// SHA-256 of the (uncompressed) chunk; the change hash for change chunks.
    let digest: [UInt8]

    /// Whether the chunk holds a change (compressed or not).
    var isChange: Bool { type == .change || type == .compressedChange }

    /// The change hash, for change chunks.
    var changeHash: ChangeHash { ChangeHash(bytes: digest) }
}

enum ChunkFraming {
    static let magic: [UInt8] = [0x85, 0x6F, 0x4A, 0x83]
    /// The bytes of a chunk before its contents' length: magic, checksum, type.
    static let fixedHeaderSize = 4 + 4 + 1

    /// SHA-256(type ‖ uLEB(contents.count) ‖ contents).
    static func digest<C: Collection>(type: UInt8, contents: C) -> [UInt8] where C.Element == UInt8 {
        var hasher = SHA256()
        // The type and the length's LEB128 (at most 11 bytes), on the stack.
        var prefix: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &prefix) { bytes in
            bytes[0] = type
            var length = UInt64(contents.count), end = 1
            repeat {
                bytes[end] = UInt8(length & 0x7F) | (length >> 7 == 0 ? 0 : 0x80)
                length >>= 7
                end += 1
            } while length != 0
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes[0..<end]))
        }
        if let slice = contents as? ArraySlice<UInt8> {
            hasher.update(data: slice)
        } else {
            hasher.update(data: Array(contents))
        }
        return Array(hasher.finalize())
    }

    /// A complete chunk holding `contents`, and the SHA-256 of its type,
    /// length and contents (for a change, its hash).
    static func frame(type: ChunkType, contents: [UInt8]) -> (bytes: [UInt8], hash: ChangeHash) {
        frame(type: type, contentsLength: contents.count) { $0.append(contentsOf: contents) }
    }

    /// A complete chunk of `contentsLength` bytes of contents, which
    /// `writeContents` appends, and the SHA-256 of its type, length and
    /// contents (see ``appendFrame(type:contentsLength:to:writeContents:)``).
    static func frame(
        type: ChunkType, contentsLength: Int, writeContents: (inout [UInt8]) -> Void
    ) -> (bytes: [UInt8], hash: ChangeHash) {
        var out = [UInt8]()
        out.reserveCapacity(frameSize(contentsLength: contentsLength))
        let hash = appendFrame(type: type, contentsLength: contentsLength, to: &out, writeContents: writeContents)
        return (out, hash)
    }

    /// The bytes of a chunk of `contentsLength` bytes of contents.
    static func frameSize(contentsLength: Int) -> Int {
        fixedHeaderSize + LEB128.unsignedSize(UInt64(contentsLength)) + contentsLength
    }

    /// Appends a complete chunk of `contentsLength` bytes of contents, which
    /// `writeContents` appends, to `out`, and returns the SHA-256 of its
    /// type, length and contents. That digest covers the frame's tail, so
    /// the tail is hashed where it lies: no copy of the contents, no digest
    /// array, and a caller that keeps many chunks end to end writes each in
    /// place.
    @discardableResult
    static func appendFrame(
        type: ChunkType, contentsLength: Int, to out: inout [UInt8], writeContents: (inout [UInt8]) -> Void
    ) -> ChangeHash {
        let start = out.count
        appendHeader(type: type, checksum: [0, 0, 0, 0], contentsLength: contentsLength, to: &out)
        let contentsStart = out.count
        writeContents(&out)
        precondition(out.count - contentsStart == contentsLength, "a chunk's contents have the length it declares")
        var hasher = SHA256()
        out.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[(start + 8)...])) }
        let digest = hasher.finalize()
        let hash = digest.withUnsafeBytes { ChangeHash(bytes: $0) }
        digest.withUnsafeBytes { digest in
            for index in 0..<4 { out[start + 4 + index] = digest[index] }
        }
        return hash
    }

    /// A complete chunk with a given checksum (for compressed changes, whose
    /// checksum is the uncompressed chunk's).
    static func frame(type: ChunkType, checksum: ArraySlice<UInt8>, contents: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(frameSize(contentsLength: contents.count))
        appendHeader(type: type, checksum: checksum, contentsLength: contents.count, to: &out)
        out.append(contentsOf: contents)
        return out
    }

    /// The contents of `chunk`, one whole chunk: what follows its magic,
    /// checksum, type and length. Nil when its length field (read as a
    /// number, whatever its encoding) does not cover exactly the rest.
    static func contents(ofFramed chunk: [UInt8]) -> ArraySlice<UInt8>? {
        var start = fixedHeaderSize
        guard chunk.count > start,
              let length = try? LEB128.readUnsigned(chunk[...], at: &start, mode: .lenient, what: "chunk length"),
              length == chunk.count - start else { return nil }
        return chunk[start...]
    }

    /// Appends a chunk's header: magic, checksum, type, contents length.
    private static func appendHeader(type: ChunkType, checksum: ArraySlice<UInt8>, contentsLength: Int, to out: inout [UInt8]) {
        out.append(contentsOf: magic)
        out.append(contentsOf: checksum)
        out.append(type.rawValue)
        LEB128.appendUnsigned(UInt64(contentsLength), to: &out)
    }

    /// Splits a file into chunks, verifying magic, type, length and checksum
    /// of each and inflating compressed changes. Errors are wrapped in
    /// ``LoadError/inChunk(_:_:)`` with the chunk's index.
    static func split(_ bytes: [UInt8], limits: DecodeLimits = .default) throws(LoadError) -> [Chunk] {
        let framing = frames(bytes)
        var chunks = [Chunk]()
        chunks.reserveCapacity(framing.frames.count)
        for frame in framing.frames {
            do throws(LoadError) { chunks.append(try frame.verified(limits: limits)) } catch { throw .inChunk(frame.index, error) }
        }
        if let failure = framing.failure { throw failure }
        return chunks
    }

    /// The frames of a file, up to the first whose magic, type or length is
    /// wrong, and that one's error (wrapped in ``LoadError/inChunk(_:_:)``).
    /// Checksums are not verified: that is each frame's own work
    /// (``ChunkFrame/verified(limits:)``), which a large batch spreads over
    /// two cores. A caller reports a frame's failure only after the frames
    /// before it verified and decoded, so that a file's error is that of its
    /// first chunk, in file order, that fails in any way (as Rust's load).
    static func frames(_ bytes: [UInt8]) -> (frames: [ChunkFrame], failure: LoadError?) {
        var frames = [ChunkFrame]()
        var reader = ByteReader(bytes)
        while !reader.isAtEnd {
            let index = frames.count
            do throws(LoadError) {
                frames.append(try readFrame(&reader, index: index))
            } catch {
                return (frames, .inChunk(index, error))
            }
        }
        return (frames, nil)
    }

    /// Reads one chunk's frame at the reader's position.
    static func readFrame(_ reader: inout ByteReader, index: Int) throws(LoadError) -> ChunkFrame {
        let start = reader.position
        let header = try reader.readBytes(4, "chunk magic")
        guard header.elementsEqual(magic) else { throw .badMagic }
        let checksum = try reader.readBytes(4, "chunk checksum")
        let typeByte = try reader.readByte("chunk type")
        guard let type = ChunkType(rawValue: typeByte) else { throw .unknownChunkType(typeByte) }
        if type == .bundle { throw .unsupportedChunkType(typeByte) }
        let contents = try reader.readLengthPrefixed("chunk contents")
        return ChunkFrame(index: index, type: type, checksum: checksum, contents: contents,
                          stored: reader.bytes[start..<reader.position])
    }
}

/// One chunk of a file as framed, its checksum not yet verified.
struct ChunkFrame: Sendable {
    /// The position of the chunk in its file (0-based).
    let index: Int
    let type: ChunkType
    /// The checksum as stored.
    let checksum: ArraySlice<UInt8>
    /// The contents as stored (raw DEFLATE for a compressed change).
    let contents: ArraySlice<UInt8>
    /// The chunk exactly as stored, header included.
    let stored: ArraySlice<UInt8>

    /// Whether the chunk holds a change (compressed or not).
    var isChange: Bool { type == .change || type == .compressedChange }

    /// The chunk with its checksum verified and, for a compressed change,
    /// its contents inflated within `limits`; errors are not wrapped.
    func verified(limits: DecodeLimits) throws(LoadError) -> Chunk {
        switch type {
        case .document, .change:
            let digest = ChunkFraming.digest(type: type.rawValue, contents: contents)
            guard digest[0..<4].elementsEqual(checksum) else { throw .badChecksum }
            return Chunk(index: index, type: type, contents: contents, stored: stored, digest: digest)
        case .compressedChange:
            let inflated = try Deflate.inflate(
                contents, limit: limits.inflateLimit(compressedSize: contents.count), what: "compressed change")
            let digest = ChunkFraming.digest(type: ChunkType.change.rawValue, contents: inflated[...])
            guard digest[0..<4].elementsEqual(checksum) else { throw .badChecksum }
            return Chunk(index: index, type: type, contents: inflated[...], stored: stored, digest: digest)
        case .bundle:
            throw .unsupportedChunkType(type.rawValue)
        }
    }

    /// The same frame in bytes of its own, not shared with the other
    /// frames of its file: for work on another thread, whose slices of a
    /// shared buffer would take turns with this thread's at its reference
    /// count.
    func unshared() -> ChunkFrame {
        let ownStored = Array(stored)[...]
        func own(_ part: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
            ownStored[(part.startIndex - stored.startIndex)..<(part.endIndex - stored.startIndex)]
        }
        return ChunkFrame(index: index, type: type, checksum: own(checksum), contents: own(contents), stored: ownStored)
    }
}

import CZlib

/// Raw DEFLATE (RFC 1951, no zlib header) through the system zlib, as used
/// for compressed change chunks and for columns of saved documents.
///
/// Inflating untrusted input is bounded: the output may not exceed the
/// caller's limit, so a small "zip bomb" fails with a typed error instead of
/// exhausting memory. The stream must end properly (a truncated stream is
/// corrupt); bytes after the end of the stream are ignored.
enum Deflate {
    /// How zlib deflates an input: a level with zlib's default strategy
    /// (LZ77 matches, then Huffman codes), or Huffman codes alone.
    struct Setting: Hashable, Sendable {
        /// zlib's level, 1 (fastest) to 9 (smallest).
        let level: Int32
        /// zlib's strategy: `Z_DEFAULT_STRATEGY` or `Z_HUFFMAN_ONLY`.
        let strategy: Int32

        /// zlib's default strategy at `level`.
        static func level(_ level: Int32) -> Setting { Setting(level: level, strategy: Z_DEFAULT_STRATEGY) }

        /// Huffman codes without searching for repeated strings: several
        /// times faster than any level, for inputs that hold few repeats
        /// (see ``ColumnType/deflateSetting(_:)``).
        static let huffmanOnly = Setting(level: 1, strategy: Z_HUFFMAN_ONLY)

        /// zlib's default, level 6, and what Rust's flate2 uses as `Compression::default()`.
        static let `default` = level(6)

        /// Whether the strategy looks for repeats, and so can use a dictionary.
        var findsMatches: Bool { strategy != Z_HUFFMAN_ONLY }
    }

    /// DEFLATE's window: the most a stream can refer back, and so the most
    /// of a dictionary that counts.
    static let windowSize = 32 * 1024

    /// Compresses `input` as raw DEFLATE. The bytes need not equal Rust's
    /// (deflaters differ), only inflate to the same data.
    static func compress<C: Collection>(_ input: C, setting: Setting = .default) -> [UInt8] where C.Element == UInt8 {
        let source = Array(input)
        return compress(source, range: source.indices, finishing: true, setting: setting)
    }

    /// Compresses `input[range]` as raw DEFLATE, primed with up to
    /// ``windowSize`` bytes before `range` as its dictionary. `finishing`
    /// ends the stream; otherwise it ends with a sync flush (an empty stored
    /// block that byte-aligns it), so that another piece can follow it in
    /// the same stream (see ``compress(each:concurrently:)``). A setting
    /// that finds no repeats needs no dictionary.
    static func compress(_ input: [UInt8], range: Range<Int>, finishing: Bool, setting: Setting) -> [UInt8] {
        var stream = z_stream()
        let initResult = deflateInit2_(&stream, setting.level, Z_DEFLATED, -15, 8, setting.strategy,
                                       zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(initResult == Z_OK, "zlib deflateInit2 failed: \(initResult)")
        defer { deflateEnd(&stream) }
        // deflateBound counts a finished stream; a sync flush adds an empty
        // stored block and the block that holds it.
        let bound = Int(deflateBound(&stream, uLong(range.count))) + 64
        var output = [UInt8](repeating: 0, count: bound)
        let written: Int = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                let dictionaryStart = max(0, range.lowerBound - windowSize)
                if setting.findsMatches, let base = source.baseAddress, dictionaryStart < range.lowerBound {
                    let result = deflateSetDictionary(&stream, base + dictionaryStart, uInt(range.lowerBound - dictionaryStart))
                    precondition(result == Z_OK, "zlib deflateSetDictionary failed: \(result)")
                }
                stream.next_in = source.baseAddress.map { UnsafeMutablePointer(mutating: $0 + range.lowerBound) }
                stream.avail_in = uInt(range.count)
                stream.next_out = destination.baseAddress
                stream.avail_out = uInt(destination.count)
                let result = deflate(&stream, finishing ? Z_FINISH : Z_SYNC_FLUSH)
                precondition(finishing ? result == Z_STREAM_END : (result == Z_OK && stream.avail_in == 0 && stream.avail_out > 0),
                             "zlib deflate did not complete: \(result)")
                return destination.count - Int(stream.avail_out)
            }
        }
        output.removeSubrange(written...)
        return output
    }

    /// Inflates raw DEFLATE `input`, failing if the output would exceed
    /// `limit` bytes or the stream is corrupt or truncated.
    static func inflate(_ input: ArraySlice<UInt8>, limit: Int, what: String) throws(LoadError) -> [UInt8] {
        guard input.count <= Int(UInt32.max) else { throw .inflatedTooLarge(what: what, limit: limit) }
        var source = Array(input)
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .invalidDeflate(what: what)
        }
        defer { inflateEnd(&stream) }

        var output = [UInt8]()
        output.reserveCapacity(max(0, min(limit, max(input.count * 4, 64))))
        let chunkSize = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var failure: LoadError? = nil

        source.withUnsafeMutableBufferPointer { src in
            stream.next_in = src.baseAddress
            stream.avail_in = uInt(src.count)
            buffer.withUnsafeMutableBufferPointer { dst in
                while true {
                    stream.next_out = dst.baseAddress
                    stream.avail_out = uInt(dst.count)
                    let result = CZlib.inflate(&stream, Z_NO_FLUSH)
                    let produced = dst.count - Int(stream.avail_out)
                    if output.count + produced > limit {
                        failure = .inflatedTooLarge(what: what, limit: limit)
                        return
                    }
                    output.append(contentsOf: dst[0..<produced])
                    switch result {
                    case Z_STREAM_END:
                        return
                    case Z_OK:
                        continue
                    case Z_BUF_ERROR where produced > 0:
                        continue
                    default:
                        // Z_BUF_ERROR without progress means the input ran out
                        // before the end of the stream.
                        failure = .invalidDeflate(what: what)
                        return
                    }
                }
            }
        }
        if let failure { throw failure }
        return output
    }
}

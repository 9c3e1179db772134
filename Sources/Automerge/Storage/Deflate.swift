import CZlib

/// Raw DEFLATE (RFC 1951, no zlib header) through the system zlib, as used
/// for compressed change chunks and for columns of saved documents.
///
/// Inflating untrusted input is bounded: the output may not exceed the
/// caller's limit, so a small "zip bomb" fails with a typed error instead of
/// exhausting memory. The stream must end properly (a truncated stream is
/// corrupt); bytes after the end of the stream are ignored.
enum Deflate {
    /// zlib's default, and what Rust's flate2 uses as `Compression::default()`.
    static let defaultLevel: Int32 = 6

    /// Compresses `input` as raw DEFLATE. The bytes need not equal Rust's
    /// (deflaters differ), only inflate to the same data.
    static func compress<C: Collection>(_ input: C, level: Int32 = defaultLevel) -> [UInt8] where C.Element == UInt8 {
        var source = Array(input)
        var stream = z_stream()
        let initResult = deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                                       zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(initResult == Z_OK, "zlib deflateInit2 failed: \(initResult)")
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(source.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let written: Int = source.withUnsafeMutableBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                stream.next_in = src.baseAddress
                stream.avail_in = uInt(src.count)
                stream.next_out = dst.baseAddress
                stream.avail_out = uInt(dst.count)
                let result = deflate(&stream, Z_FINISH)
                precondition(result == Z_STREAM_END, "zlib deflate did not finish: \(result)")
                return dst.count - Int(stream.avail_out)
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

import CZlib
import Dispatch

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

    /// Inputs totalling at least this many bytes are compressed on several
    /// threads: below it, handing work to other threads costs more than it
    /// saves (zlib manages about 25 MB/s at level 6, so 128 KiB is ~5 ms).
    static let concurrencyThreshold = 128 * 1024

    /// Compresses each input as raw DEFLATE, as ``compress(_:level:)`` would
    /// one by one. Large batches (a save's columns) are spread over the
    /// machine's cores, largest first, so that the biggest column (usually
    /// a text's characters) starts at once and the rest fill the other
    /// cores; every input is still one independent stream, so the output
    /// is the same bytes either way.
    static func compress(each inputs: [[UInt8]], level: Int32 = defaultLevel) -> [[UInt8]] {
        let total = inputs.reduce(0) { $0 + $1.count }
        guard inputs.count > 1, total >= concurrencyThreshold else {
            return inputs.map { compress($0, level: level) }
        }
        let largestFirst = inputs.indices.sorted { inputs[$0].count > inputs[$1].count }
        let slots = ResultSlots(count: inputs.count)
        defer { slots.deallocate() }
        DispatchQueue.concurrentPerform(iterations: largestFirst.count) { position in
            let index = largestFirst[position]
            slots.store(compress(inputs[index], level: level), at: index)
        }
        return slots.values
    }

    /// One result per input, each written by exactly one worker of
    /// ``compress(each:level:)`` and read only after all have finished.
    /// Raw memory rather than an array: workers must not go through one
    /// array's uniqueness check and mutation at the same time.
    private struct ResultSlots: @unchecked Sendable {
        private let slots: UnsafeMutableBufferPointer<[UInt8]>

        init(count: Int) {
            slots = .allocate(capacity: count)
            slots.initialize(repeating: [])
        }

        func store(_ value: [UInt8], at index: Int) { slots[index] = value }

        var values: [[UInt8]] { Array(slots) }

        func deallocate() {
            _ = slots.deinitialize()
            slots.deallocate()
        }
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

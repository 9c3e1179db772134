/// Where encoders append bytes one at a time: an array, or memory a
/// writer has reserved (``UnsafeByteWriter``).
///
/// The encoders of LEB128 and of the packed forms are generic over it, and
/// specialized: one encoder serves both, and a packed leaf, whose size is
/// worked out first, is written without an array's uniqueness and
/// capacity checks on each byte.
protocol ByteSink {
    mutating func append(_ byte: UInt8)
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: ByteSink where Element == UInt8 {}

/// Writes into memory reserved for exactly what is written; the caller
/// checks the count at the end (``count``).
struct UnsafeByteWriter: ByteSink {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    /// The bytes written so far.
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        precondition(count < buffer.count, "write past the reserved bytes")
        buffer[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= buffer.count - count, "write past the reserved bytes")
        guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
        (target + count).update(from: source, count: bytes.count)
        count += bytes.count
    }
}

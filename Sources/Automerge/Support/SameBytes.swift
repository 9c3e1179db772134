#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension UnsafeRawBufferPointer {
    /// Whether `other` holds the same bytes, compared with `memcmp`:
    /// `elementsEqual` walks two buffers a byte at a time through their
    /// iterators, several times slower on the chunks and keys compared here.
    func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        count == other.count && (isEmpty || memcmp(baseAddress!, other.baseAddress!, count) == 0)
    }
}

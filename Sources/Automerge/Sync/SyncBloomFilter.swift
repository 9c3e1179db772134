/// A Bloom filter of change hashes: how a sync message says which changes
/// its sender has without listing them.
///
/// The wire form and probe rule are Rust's (`sync/bloom.rs`): the first
/// three little-endian 32-bit words of a hash, each modulo the filter's bit
/// count, seed a probe sequence `x, x+y, x+2y+z, ...`; bit `p` is bit
/// `p & 7` (least significant first) of byte `p >> 3`. Filters this package
/// builds use 10 bits per entry and 7 probes (a 1% false-positive rate);
/// filters it reads carry their own parameters.
public struct SyncBloomFilter: Hashable, Sendable {
    /// How many hashes the filter was built from (0: the filter is empty and contains nothing).
    public let entryCount: UInt32
    /// Bits allotted per entry.
    public let bitsPerEntry: UInt32
    /// Probes per hash. A filter that says 0 still probes once, as Rust does.
    public let probeCount: UInt32
    let bits: [UInt8]

    /// The most probes a received filter may ask for. Every implementation
    /// uses 7; the limit bounds the work a hostile filter can cause (each
    /// probe is paid for every change a peer checks against the filter).
    public static let maximumProbeCount: UInt32 = 64

    static let defaultBitsPerEntry: UInt32 = 10
    static let defaultProbeCount: UInt32 = 7

    /// A filter holding `hashes`, with 10 bits per entry and 7 probes.
    public init<S: Sequence>(hashes: S) where S.Element == ChangeHash {
        let hashes = Array(hashes)
        entryCount = UInt32(truncatingIfNeeded: hashes.count)
        bitsPerEntry = Self.defaultBitsPerEntry
        probeCount = Self.defaultProbeCount
        var bits = [UInt8](repeating: 0, count: Self.byteCount(entries: entryCount, bitsPerEntry: bitsPerEntry))
        let modulo = Self.bitCount(of: bits)
        if modulo != 0 {
            for hash in hashes {
                Self.forEachProbe(of: hash, probes: probeCount, modulo: modulo) { bit in
                    bits[Int(bit >> 3)] |= 1 << (bit & 7)
                    return true
                }
            }
        }
        self.bits = bits
    }

    /// The empty filter (no entries, no bytes on the wire).
    public init() {
        self.init(hashes: [])
    }

    init(entryCount: UInt32, bitsPerEntry: UInt32, probeCount: UInt32, bits: [UInt8]) {
        self.entryCount = entryCount
        self.bitsPerEntry = bitsPerEntry
        self.probeCount = probeCount
        self.bits = bits
    }

    /// Whether `hash` may be in the filter (false positives happen; false negatives do not).
    public func contains(_ hash: ChangeHash) -> Bool {
        let modulo = Self.bitCount(of: bits)
        guard entryCount != 0, modulo != 0 else { return false }
        var all = true
        Self.forEachProbe(of: hash, probes: probeCount, modulo: modulo) { bit in
            if bits[Int(bit >> 3)] & (1 << (bit & 7)) == 0 {
                all = false
                return false
            }
            return true
        }
        return all
    }

    /// The filter's bytes as a sync message carries them: nothing for an
    /// empty filter, else the three parameters as uLEB and the bits.
    public var bytes: [UInt8] {
        guard entryCount != 0 else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(bits.count + 8)
        LEB128.appendUnsigned(UInt64(entryCount), to: &out)
        LEB128.appendUnsigned(UInt64(bitsPerEntry), to: &out)
        LEB128.appendUnsigned(UInt64(probeCount), to: &out)
        out.append(contentsOf: bits)
        return out
    }

    /// ⌈entries × bitsPerEntry / 8⌉, exact (the product of two 32-bit numbers fits 64 bits).
    static func byteCount(entries: UInt32, bitsPerEntry: UInt32) -> Int {
        let bitCount = UInt64(entries) * UInt64(bitsPerEntry)
        return Int((bitCount + 7) / 8)
    }

    /// The number of bits, cut to 32 bits as Rust's `as u32` does (received
    /// filters too large for that are refused when decoded).
    static func bitCount(of bits: [UInt8]) -> UInt32 {
        UInt32(truncatingIfNeeded: bits.count &* 8)
    }

    /// Calls `body` with each probe's bit index until it returns false.
    /// Sums wrap at 32 bits, as Rust's release builds do.
    private static func forEachProbe(of hash: ChangeHash, probes: UInt32, modulo: UInt32, _ body: (UInt32) -> Bool) {
        let (a, b, c) = hash.leadingLittleEndianWords
        var x = a % modulo
        var y = b % modulo
        let z = c % modulo
        guard body(x) else { return }
        var probe: UInt32 = 1
        while probe < probes {
            x = (x &+ y) % modulo
            y = (y &+ z) % modulo
            guard body(x) else { return }
            probe += 1
        }
    }
}

extension ChangeHash {
    /// Bytes 0-3, 4-7 and 8-11 read as little-endian 32-bit words.
    var leadingLittleEndianWords: (UInt32, UInt32, UInt32) {
        // w0 holds bytes 0-7 big-endian, w1 bytes 8-15.
        let first = UInt32(truncatingIfNeeded: w0 >> 32).byteSwapped
        let second = UInt32(truncatingIfNeeded: w0).byteSwapped
        let third = UInt32(truncatingIfNeeded: w1 >> 32).byteSwapped
        return (first, second, third)
    }
}

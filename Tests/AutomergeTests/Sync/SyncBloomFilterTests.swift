import Crypto
import Foundation
import Testing
@testable import Automerge

/// Bloom filters: Rust's parameters, probe rule and bytes.
@Suite("Sync: bloom filters")
struct SyncBloomFilterTests {
    static func hash(_ index: Int) -> ChangeHash {
        ChangeHash(bytes: Array(SHA256.hash(data: Data("hash \(index)".utf8))))
    }

    @Test("10 bits per entry and 7 probes: n entries take ⌈10n/8⌉ bytes after the three parameters")
    func sizes() {
        for count in [1, 2, 3, 8, 100] {
            let filter = SyncBloomFilter(hashes: (0..<count).map(Self.hash))
            let header: [UInt8] = [UInt8(count), 10, 7]
            #expect(Array(filter.bytes.prefix(3)) == header)
            #expect(filter.bytes.count == 3 + (count * 10 + 7) / 8)
        }
        #expect(SyncBloomFilter(hashes: []).bytes.isEmpty)
    }

    @Test("bits follow the probe rule: little-endian words 0, 1, 2 of the hash, x += y, y += z, modulo the bit count")
    func probeRule() {
        let hash = Self.hash(7)
        let filter = SyncBloomFilter(hashes: [hash])
        let bytes = hash.bytes
        func word(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
        let modulo: UInt32 = 16  // 2 bytes
        var (x, y, z) = (word(0) % modulo, word(4) % modulo, word(8) % modulo)
        var expected = [UInt8](repeating: 0, count: 2)
        for probe in 0..<7 {
            if probe > 0 { x = (x + y) % modulo; y = (y + z) % modulo }
            expected[Int(x >> 3)] |= 1 << (x & 7)
        }
        #expect(Array(filter.bytes.dropFirst(3)) == expected)
    }

    @Test("contains every hash it was built from; about 1% false positives")
    func membership() {
        let members = (0..<1000).map(Self.hash)
        let filter = SyncBloomFilter(hashes: members)
        #expect(members.allSatisfy(filter.contains))
        let falsePositives = (1000..<21000).filter { filter.contains(Self.hash($0)) }.count
        #expect(falsePositives < 400, "\(falsePositives) false positives in 20,000")
    }

    @Test("decodes what it encodes; a filter of 0 probes still probes once, as Rust's does")
    func decoding() throws {
        let filter = SyncBloomFilter(hashes: (0..<10).map(Self.hash))
        #expect(try SyncBloomFilter(decoding: filter.bytes[...]) == filter)
        let zeroProbes = try SyncBloomFilter(decoding: [1, 10, 0, 0xFF, 0xFF][...])
        #expect(zeroProbes.contains(Self.hash(1)))
    }
}

import Foundation
import Testing
@testable import Automerge

/// The wire form of sync messages, as Rust 0.11 writes and reads it.
@Suite("Sync: messages")
struct SyncMessageTests {
    let hashA = ChangeHash(bytes: [UInt8](repeating: 0xAA, count: 32))
    let hashB = ChangeHash(bytes: [UInt8](repeating: 0xBB, count: 32))

    @Test("an empty message is the type byte, four empty lists and Rust's flags trailer 02 02 84")
    func emptyMessageBytes() {
        let message = SyncMessage(version: .v1, flags: [.supportsSyncReset])
        #expect(message.encoded() == [0x42, 0, 0, 0, 0, 0x02, 0x02, 0x84])
    }

    @Test("every field round-trips, V1 and V2")
    func roundTrip() throws {
        for version in [SyncMessage.Version.v1, .v2] {
            let message = SyncMessage(
                version: version, heads: [hashA, hashB], need: [hashB],
                have: [SyncHave(lastSync: [hashA], bloom: SyncBloomFilter(hashes: [hashA, hashB])), SyncHave()],
                changes: [[1, 2, 3], []], flags: [.readOnly, .supportsSyncReset])
            #expect(try SyncMessage(decoding: message.encoded()[...]) == message)
        }
    }

    @Test("a peek reads the heads of any message, whatever follows them, and nil before them")
    func peekHeads() {
        for version in [SyncMessage.Version.v1, .v2] {
            let message = SyncMessage(version: version, heads: [hashA, hashB], need: [hashB],
                                      have: [SyncHave(lastSync: [hashA], bloom: SyncBloomFilter(hashes: [hashA]))],
                                      changes: [[UInt8](repeating: 7, count: 1000)])
            let bytes = message.encoded()
            #expect(SyncMessage.heads(peekingAt: bytes[...]) == [hashA, hashB])
            // Cut after the heads: the rest is not read.
            #expect(SyncMessage.heads(peekingAt: bytes.prefix(2 + 64)) == [hashA, hashB])
        }
        #expect(SyncMessage.heads(peekingAt: SyncMessage().encoded()[...]) == [])
        #expect(SyncMessage.heads(peekingAt: [][...]) == nil)
        #expect(SyncMessage.heads(peekingAt: [0x99, 0][...]) == nil, "not a sync message type")
        #expect(SyncMessage.heads(peekingAt: [0x42, 2, 0xAA][...]) == nil, "two heads announced, one byte of them")
        #expect(SyncMessage.heads(peekingAt: [0x42, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F][...]) == nil, "a huge count, refused before allocating")
    }

    @Test("no trailer: the sender is an old (V1-only) peer")
    func noTrailer() throws {
        let decoded = try SyncMessage(decoding: [0x42, 0, 0, 0, 0][...])
        #expect(decoded.flags == nil)
    }

    @Test("Rust 0.6's capability list 02 01 02 is a trailer without flag bits: the sender reads V2")
    func legacyCapabilities() throws {
        let decoded = try SyncMessage(decoding: [0x42, 0, 0, 0, 0, 0x02, 0x01, 0x02][...])
        #expect(decoded.flags == [])
    }

    @Test("bitfield bytes are or-ed, bytes below 0x80 ignored, bytes after the trailer ignored")
    func trailerBits() throws {
        let decoded = try SyncMessage(decoding: [0x43, 0, 0, 0, 0, 0x03, 0x81, 0x02, 0x84, 0xFF, 0xFF][...])
        #expect(decoded.version == .v2)
        #expect(decoded.flags == [.syncReset, .supportsSyncReset])
    }

    @Test("unsorted heads are kept as sent (Rust does not check their order)")
    func unsortedHeads() throws {
        let message = SyncMessage(heads: [hashB, hashA])
        #expect(try SyncMessage(decoding: message.encoded()[...]).heads == [hashB, hashA])
    }

    @Test("bad messages get typed errors", arguments: [
        ([], SyncMessageError.empty),
        ([0x44], .unknownType(0x44)),
        ([0x42], .malformed(.truncated(what: "heads"))),
    ] as [([UInt8], SyncMessageError)])
    func badMessages(bytes: [UInt8], expected: SyncMessageError) {
        #expect(throws: expected) { try SyncMessage(decoding: bytes[...]) }
    }

    @Test("counts and lengths past the end fail before anything is allocated")
    func hostileLengths() {
        // 2^62 heads; a change claiming 2^40 bytes; 2^50 have entries.
        let hostile: [[UInt8]] = [
            [0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40],
            [0x42, 0, 0, 0, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20],
            [0x42, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
        ]
        for bytes in hostile {
            #expect {
                try SyncMessage(decoding: bytes[...])
            } throws: { error in
                guard case .malformed(.lengthPastEnd)? = error as? SyncMessageError else { return false }
                return true
            }
        }
    }

    @Test("an overlong LEB128 count is refused, as Rust's strict framing does")
    func overlongCount() {
        #expect(throws: SyncMessageError.malformed(.overlongLEB128(what: "heads"))) {
            try SyncMessage(decoding: [0x42, 0x80, 0x00, 0, 0, 0][...])
        }
    }

    @Test("bloom filters Rust would crash or hang on are refused")
    func hostileBloomFilters() {
        // have: lastSync [], bloom bytes = entries 5, 0 bits per entry, 7 probes (no bits: Rust divides by zero).
        let noBits: [UInt8] = [0x42, 0, 0, 1, 0, 3, 5, 0, 7, 0]
        #expect(throws: SyncMessageError.bloomFilterWithoutBits(have: 0, entries: 5)) { try SyncMessage(decoding: noBits[...]) }
        // 1 entry, 10 bits, 2^31 probes.
        let manyProbes: [UInt8] = [0x42, 0, 0, 1, 0, 9, 1, 10, 0x80, 0x80, 0x80, 0x80, 0x08, 0xFF, 0xFF, 0]
        #expect(throws: SyncMessageError.tooManyProbes(have: 0, probes: 1 << 31)) { try SyncMessage(decoding: manyProbes[...]) }
    }
}

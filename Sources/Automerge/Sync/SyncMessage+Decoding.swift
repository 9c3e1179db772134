#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SyncMessage {
    /// Decodes a message, as Rust's `Message::decode` reads it: bytes after
    /// the flags trailer are ignored; hashes need not be sorted. Every count
    /// and length is checked against the bytes that remain before anything
    /// is allocated, so the work is linear in the message's size.
    public init(bytes: Data) throws(SyncMessageError) {
        try self.init(decoding: [UInt8](bytes)[...])
    }

    /// The heads a message starts with, read without decoding the rest (its
    /// bloom filters and changes): what a server needs to weigh a message
    /// before it does the work. Nil when the message does not start as a
    /// sync message does; decoding it whole says what is wrong.
    public static func heads(peekingAt bytes: ArraySlice<UInt8>) -> [ChangeHash]? {
        var reader = ByteReader(bytes)
        guard let type = try? reader.readByte("message type"), Version(rawValue: type) != nil else { return nil }
        return try? reader.readHashes("heads")
    }

    /// Decodes a message from bytes.
    public init(decoding bytes: ArraySlice<UInt8>) throws(SyncMessageError) {
        do {
            var reader = ByteReader(bytes)
            guard let type = try? reader.readByte("message type") else { throw SyncMessageError.empty }
            guard let version = Version(rawValue: type) else { throw SyncMessageError.unknownType(type) }
            let heads = try reader.readHashes("heads")
            let need = try reader.readHashes("need")
            let haveCount = try reader.readCount("have list", minimumItemSize: 2)
            var have: [SyncHave] = []
            have.reserveCapacity(haveCount)
            for index in 0..<haveCount {
                let lastSync = try reader.readHashes("last sync of have \(index)")
                let bloomBytes = try reader.readLengthPrefixed("bloom filter of have \(index)")
                have.append(SyncHave(lastSync: lastSync, bloom: try SyncBloomFilter(decoding: bloomBytes, have: index)))
            }
            let changeCount = try reader.readCount("changes", minimumItemSize: 1)
            var changes: [[UInt8]] = []
            changes.reserveCapacity(changeCount)
            for index in 0..<changeCount {
                changes.append(Array(try reader.readLengthPrefixed("change \(index)")))
            }
            let flags = reader.isAtEnd ? nil : SyncMessageFlags(trailer: try reader.readLengthPrefixed("flags trailer"))
            self.init(version: version, heads: heads, need: need, have: have, changes: changes, flags: flags)
        } catch let error as SyncMessageError {
            throw error
        } catch let error as LoadError {
            throw .malformed(error)
        } catch {
            throw .malformed(.truncated(what: "\(error)"))
        }
    }
}

extension SyncBloomFilter {
    /// Decodes a filter's bytes (empty bytes: the empty filter). Bytes after
    /// the bits are ignored, as Rust ignores them.
    public init(decoding bytes: ArraySlice<UInt8>) throws(SyncMessageError) {
        try self.init(decoding: bytes, have: 0)
    }

    init(decoding bytes: ArraySlice<UInt8>, have index: Int) throws(SyncMessageError) {
        if bytes.isEmpty {
            self.init()
            return
        }
        var reader = ByteReader(bytes)
        let entries: UInt32, bitsPerEntry: UInt32, probes: UInt32, bits: ArraySlice<UInt8>
        do {
            entries = try reader.readUnsigned32("bloom filter entry count of have \(index)")
            bitsPerEntry = try reader.readUnsigned32("bloom filter bits per entry of have \(index)")
            probes = try reader.readUnsigned32("bloom filter probe count of have \(index)")
            let count = Self.byteCount(entries: entries, bitsPerEntry: bitsPerEntry)
            bits = try reader.readBytes(UInt64(count), "bloom filter bits of have \(index)")
        } catch {
            throw .malformed(error)
        }
        // Rust accepts these, then divides by zero (no bits) or overflows
        // (more bits than 32 bits count) or loops for billions of probes
        // when it checks a hash against the filter.
        // A filter of no entries contains nothing and is written as no bytes,
        // whatever parameters it was sent with: it is the empty filter.
        guard entries != 0 else {
            self.init()
            return
        }
        guard !bits.isEmpty else { throw .bloomFilterWithoutBits(have: index, entries: entries) }
        guard bits.count < 1 << 29 else { throw .bloomFilterTooLarge(have: index, bytes: bits.count) }
        guard probes <= Self.maximumProbeCount else { throw .tooManyProbes(have: index, probes: probes) }
        self.init(entryCount: entries, bitsPerEntry: bitsPerEntry, probeCount: probes, bits: Array(bits))
    }
}

/// Why bytes are not a sync message this package accepts.
public enum SyncMessageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No bytes at all.
    case empty
    /// The first byte is neither `0x42` (V1) nor `0x43` (V2).
    case unknownType(UInt8)
    /// A field is truncated, claims more bytes than remain, or is a bad LEB128 number.
    case malformed(LoadError)
    /// A Bloom filter claims entries but has no bits (Rust divides by zero on it).
    case bloomFilterWithoutBits(have: Int, entries: UInt32)
    /// A Bloom filter of more bits than a 32-bit probe can address.
    case bloomFilterTooLarge(have: Int, bytes: Int)
    /// A Bloom filter asks for more than ``SyncBloomFilter/maximumProbeCount`` probes per hash.
    case tooManyProbes(have: Int, probes: UInt32)

    public var description: String {
        switch self {
        case .empty: return "empty sync message"
        case .unknownType(let byte):
            return "not a sync message: first byte is 0x\(String(byte, radix: 16)), expected 0x42 or 0x43"
        case .malformed(let error): return "malformed sync message: \(error)"
        case .bloomFilterWithoutBits(let have, let entries):
            return "bloom filter of have \(have) claims \(entries) entries but has no bits"
        case .bloomFilterTooLarge(let have, let bytes):
            return "bloom filter of have \(have) has \(bytes) bytes, more than 32-bit probes address"
        case .tooManyProbes(let have, let probes):
            return "bloom filter of have \(have) asks for \(probes) probes per hash (at most \(SyncBloomFilter.maximumProbeCount))"
        }
    }
}

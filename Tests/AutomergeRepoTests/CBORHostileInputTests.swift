import Testing
@testable import AutomergeRepoProtocol

/// Bytes from a peer are untrusted: whatever they hold, decoding ends in a
/// value or in the typed error naming what is wrong and where, without
/// allocating what the bytes merely claim and without trapping.
@Suite("CBOR: hostile input")
struct CBORHostileInputTests {
    func decoding(_ bytes: [UInt8], maxDepth: Int = CBORDecoder.defaultMaxDepth) -> CBORError? {
        do {
            _ = try CBORValue.decode(bytes, maxDepth: maxDepth)
            return nil
        } catch {
            return error
        }
    }

    @Test("input that ends inside an item is truncated at that item")
    func truncated() {
        #expect(decoding([]) == .truncated(offset: 0))
        #expect(decoding(hex("19 03")) == .truncated(offset: 0), "a two-byte argument with one byte")
        #expect(decoding(hex("82 01 19 03")) == .truncated(offset: 2), "an array whose last element is cut")
        #expect(decoding(hex("a1 61 61")) == .truncated(offset: 3), "a map key without its value")
        #expect(decoding(hex("9f 01")) == .truncated(offset: 0), "an indefinite array without its break")
        #expect(decoding(hex("5f 41 00")) == .truncated(offset: 0), "an indefinite string without its break")
        #expect(decoding(hex("c1")) == .truncated(offset: 1), "a tag without its item")
        #expect(decoding(hex("fb 3ff1")) == .truncated(offset: 0), "a double with two of its eight bytes")
    }

    @Test("lengths and counts beyond the input are refused before any allocation")
    func hugeLengths() {
        #expect(decoding(hex("5b ffffffffffffffff")) == .lengthExceedsInput(offset: 0, declared: .max, available: 0))
        #expect(decoding(hex("7b ffffffffffffffff 61")) == .lengthExceedsInput(offset: 0, declared: .max, available: 1))
        #expect(decoding(hex("9b ffffffffffffffff 00")) == .lengthExceedsInput(offset: 0, declared: .max, available: 1))
        #expect(decoding(hex("bb 7fffffffffffffff 00")) ==
            .lengthExceedsInput(offset: 0, declared: 0x7fff_ffff_ffff_ffff, available: 1))
        #expect(decoding(hex("44 010203")) == .lengthExceedsInput(offset: 0, declared: 4, available: 3))
        #expect(decoding(hex("83 01 02")) == .lengthExceedsInput(offset: 0, declared: 3, available: 2),
                "an array's element takes a byte at least")
        #expect(decoding(hex("a2 0102 03")) == .lengthExceedsInput(offset: 0, declared: 2, available: 3),
                "a map's entry takes two bytes at least")
        #expect(decoding(hex("5f 5b ffffffffffffffff ff")) ==
            .lengthExceedsInput(offset: 1, declared: .max, available: 1), "a chunk's length too")
    }

    @Test("nested containers that each claim the whole input cost only what is read")
    func nestedClaims() {
        // 64 arrays, each declaring as many elements as there are bytes left.
        var bytes: [UInt8] = []
        for level in 0..<64 { bytes += [0x9a] + bigEndian32(UInt32(64 * 5 - 5 * level - 5)) }
        #expect(decoding(bytes) == .truncated(offset: bytes.count))
    }

    func bigEndian32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    @Test("nesting deeper than the limit is refused where it goes too deep")
    func deepNesting() {
        let limit = CBORDecoder.defaultMaxDepth
        let atLimit = [UInt8](repeating: 0x81, count: limit) + [0x00]
        #expect(decoding(atLimit) == nil, "64 arrays around an integer")
        #expect(decoding([UInt8](repeating: 0x81, count: limit + 1) + [0x00]) ==
            .nestingTooDeep(offset: limit, limit: limit))
        #expect(decoding([UInt8](repeating: 0x9f, count: 100_000)) == .nestingTooDeep(offset: limit, limit: limit))
        #expect(decoding([UInt8](repeating: 0xc1, count: 100_000)) == .nestingTooDeep(offset: limit, limit: limit),
                "tags count as nesting")
        #expect(decoding([UInt8](repeating: 0xa1, count: 100_000)) == .nestingTooDeep(offset: limit, limit: limit),
                "so do map keys")
        #expect(decoding(hex("8181 00"), maxDepth: 1) == .nestingTooDeep(offset: 1, limit: 1))
    }

    @Test("text strings must be UTF-8: overlong forms, surrogates, stray continuation bytes")
    func badUTF8() {
        #expect(decoding(hex("62 c0af")) == .invalidUTF8(offset: 0), "overlong '/'")
        #expect(decoding(hex("63 eda080")) == .invalidUTF8(offset: 0), "a UTF-16 surrogate")
        #expect(decoding(hex("61 80")) == .invalidUTF8(offset: 0), "a lone continuation byte")
        #expect(decoding(hex("64 f4908080")) == .invalidUTF8(offset: 0), "beyond U+10FFFF")
        #expect(decoding(hex("82 6161 61ff")) == .invalidUTF8(offset: 3), "the offset of the string at fault")
        #expect(decoding(hex("7f 61c3 61bc ff")) == .invalidUTF8(offset: 1),
                "each chunk must be UTF-8 on its own (RFC 8949 §3.2.3)")
    }

    @Test("bytes after the one top-level item are refused")
    func trailingBytes() throws {
        #expect(decoding(hex("01 02")) == .trailingBytes(offset: 1))
        #expect(decoding(hex("a0 00")) == .trailingBytes(offset: 1))
        var decoder = CBORDecoder(hex("01 02"))
        #expect(try decoder.decodeItem() == .unsigned(1), "a stream reader takes one item at a time")
        #expect(try decoder.decodeItem() == .unsigned(2))
        #expect(decoder.isAtEnd)
    }

    @Test("additional information 28, 29 and 30 is reserved, under every major type",
          arguments: 0..<8)
    func reservedInfo(major: Int) {
        for info in 28...30 {
            let initial = UInt8(major << 5 | info)
            #expect(decoding([initial, 0, 0, 0, 0, 0, 0, 0, 0]) == .reservedAdditionalInfo(offset: 0, value: UInt8(info)))
        }
        #expect(decoding(hex("81 1c")) == .reservedAdditionalInfo(offset: 1, value: 28))
    }

    @Test("indefinite length exists only for strings, arrays and maps")
    func indefiniteWhereNotAllowed() {
        #expect(decoding(hex("1f")) == .indefiniteLengthNotAllowed(offset: 0, majorType: 0))
        #expect(decoding(hex("3f")) == .indefiniteLengthNotAllowed(offset: 0, majorType: 1))
        #expect(decoding(hex("df 00")) == .indefiniteLengthNotAllowed(offset: 0, majorType: 6))
    }

    @Test("chunks of an indefinite-length string are definite strings of its own type")
    func badChunks() {
        #expect(decoding(hex("5f 6161 ff")) == .invalidChunk(offset: 1), "a text chunk in a byte string")
        #expect(decoding(hex("7f 4161 ff")) == .invalidChunk(offset: 1), "a byte chunk in a text string")
        #expect(decoding(hex("5f 5f ff ff")) == .invalidChunk(offset: 1), "an indefinite chunk")
        #expect(decoding(hex("5f 01 ff")) == .invalidChunk(offset: 1), "an integer")
    }

    @Test("a break code belongs only at the end of an indefinite-length item")
    func strayBreak() {
        #expect(decoding(hex("ff")) == .unexpectedBreak(offset: 0))
        #expect(decoding(hex("81 ff")) == .unexpectedBreak(offset: 1), "in a definite array")
        #expect(decoding(hex("bf 6161 ff")) == .unexpectedBreak(offset: 3), "in place of a map's value")
    }

    @Test("simple values below 32 have no two-byte form (RFC 8949 §3.3), simple(24) of RFC 7049's table included")
    func twoByteSimpleValues() throws {
        #expect(decoding(hex("f818")) == .invalidSimpleValue(offset: 0, value: 24))
        #expect(decoding(hex("f800")) == .invalidSimpleValue(offset: 0, value: 0))
        #expect(decoding(hex("f81f")) == .invalidSimpleValue(offset: 0, value: 31))
        #expect(try CBORValue.decode(hex("f820")) == .simple(CBORValue.SimpleValue(32)!))
        #expect(CBORValue.SimpleValue(24) == nil && CBORValue.SimpleValue(20) == nil, "nor can they be made")
    }

    @Test("a map may not repeat a key")
    func duplicateKeys() throws {
        #expect(decoding(hex("a2 6161 01 6161 02")) == .duplicateMapKey(offset: 4))
        #expect(decoding(hex("bf 01 01 1801 02 ff")) == .duplicateMapKey(offset: 3), "equal values in other forms")
        #expect(try CBORValue.decode(hex("a2 6161 01 4161 02")) ==
            .map([.init(text("a"), .unsigned(1)), .init(.byteString([0x61]), .unsigned(2))]), "text and bytes differ")
    }

    @Test("no byte sequence traps: every prefix and one-byte corruption of a message")
    func corruptionsEndInValuesOrErrors() {
        let message = CBORValue.textMap([
            "type": text("sync"), "senderId": text("peer-a"), "documentId": text("4NMNnkMhL8jXrdJ9jamS58PAVdXu"),
            "data": .byteString(Array(0..<40)), "list": .array([.float(1.5), .null, .tagged(2, .byteString([1]))]),
        ]).encoded()
        for end in 0..<message.count { _ = decoding(Array(message[..<end])) }
        for index in message.indices {
            for byte in [0x00, 0x1f, 0x5b, 0x7f, 0x9f, 0xbb, 0xdf, 0xff] as [UInt8] {
                var corrupt = message
                corrupt[index] = byte
                _ = decoding(corrupt)
            }
        }
    }
}

@Suite("CBOR: text keys")
struct CBORTextKeyTests {
    @Test("text keys are compared by their UTF-8: canonically equivalent spellings are two keys, the same bytes twice one")
    func keysByBytes() throws {
        let composed = Array("é".utf8), decomposed = Array("e\u{301}".utf8)
        let twoKeys: [UInt8] = [0xA2, 0x60 | UInt8(composed.count)] + composed + [0x01, 0x60 | UInt8(decomposed.count)]
            + decomposed + [0x02]
        let value = try CBORValue.decode(twoKeys)
        guard case .map(let entries) = value else { Issue.record("not a map"); return }
        #expect(entries.count == 2)
        #expect(value.encoded() == twoKeys)
        let sameTwice: [UInt8] = [0xA2, 0x62] + composed + [0x01, 0x62] + composed + [0x02]
        #expect(throws: CBORError.self) { try CBORValue.decode(sameTwice) }
    }
}

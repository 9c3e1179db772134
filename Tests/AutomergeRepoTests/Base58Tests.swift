import Testing
@testable import AutomergeRepoProtocol

/// Base58 (Bitcoin alphabet) and base58check as npm's `bs58`/`bs58check` write
/// them, against published vectors: Bitcoin Core's
/// src/test/data/base58_encode_decode.json and bs58check's test/fixtures.json.
@Suite("Base58 and base58check")
struct Base58Tests {
    /// Bitcoin Core's base58_encode_decode.json: hex bytes, their base58.
    static let bitcoinVectors: [(String, String)] = [
        ("", ""),
        ("61", "2g"),
        ("626262", "a3gV"),
        ("636363", "aPEr"),
        ("73696d706c792061206c6f6e6720737472696e67", "2cFupjhnEsSn59qHXstmK2ffpLv2"),
        ("00eb15231dfceb60925886b67d065299925915aeb172c06647", "1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L"),
        ("516b6fcd0f", "ABnLTmg"),
        ("bf4f89001e670274dd", "3SEo3LWLoPntC"),
        ("572e4794", "3EFU7m"),
        ("ecac89cad93923c02321", "EJDM8drfXA6uyA"),
        ("10c8511e", "Rt5zm"),
        ("00000000000000000000", "1111111111"),
        (String(repeating: "00", count: 40), String(repeating: "1", count: 40)),
        (String(repeating: "00", count: 39) + "01", String(repeating: "1", count: 39) + "2"),
        (String(repeating: "00", count: 86) + "ec39d04c37e71e5d591881f6", String(repeating: "1", count: 86) + "5TYzLYH1udmLdzCLM"),
        ("000111d38e5fc9071ffcd20b4a763cc9ae4f252bb4e48fd66a835e252ada93ff480d6dd43dc62a641155a5",
         "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"),
        (hexString((0...255).map { UInt8($0) }),
         "1cWB5HCBdLjAuqGGReWE3R3CguuwSjw6RHn39s2yuDRTS5NsBgNiFpWgAnEx6VQi8csexkgYw3mdYrMHr8x9i7aEwP8kZ7vccXWqKDvGv3u1GxF"
         + "KPuAkn8JCPPGDMf3vMMnbzm6Nh9zh1gcNsMvH3ZNLmP5fSG6DGbbi2tuwMWPthr4boWwCxf7ewSgNQeacyozhKDDQQ1qL5fQFUW52QKUZDZ5fw"
         + "3KXNQJMcNTcaB723LchjeKun7MuGW5qyCBZYzA1KjofN1gYBV3NqyhQJ3Ns746GNuf9N2pQPmHz4xpnSrrfCvy6TVVz5d4PdrjeshsWQwpZsZG"
         + "zvbdAdN8MKV5QsBDY"),
        ("271F359E", "zzzzy"),
        ("271F359F", "zzzzz"),
        ("271F35A0", "211111"),
        ("271F35A1", "211112"),
    ]

    @Test("Bitcoin Core's vectors encode and decode both ways")
    func bitcoinCoreVectors() throws {
        for (bytes, text) in Self.bitcoinVectors {
            #expect(Base58.encode(hex(bytes)) == text, "\(bytes)")
            #expect(try Base58.decode(text) == hex(bytes), "\(text)")
        }
    }

    /// From bs58check's test/fixtures.json ("valid"): string, payload.
    static let bs58checkVectors: [(String, String)] = [
        ("1AGNa15ZQXAZUgFiqJ2i7Z2DPU2J6hW62i", "0065a16059864a2fdbc7c99a4723a8395bc6f188eb"),
        ("3CMNFxN1oHBc4R1EpboAL5yzHGgE611Xou", "0574f209f6ea907e2ea48f74fae05782ae8a665257"),
        ("mo9ncXisMeAoXwqcV5EWuyncbmCcQN4rVs", "6f53c0307d6851aa0ce7825ba883c6bd9ad242b486"),
        ("2N2JD6wb56AfK4tfmM6PwdVmoYk2dCKf4Br", "c46349a418fc4578d10a372b54b45c280cc8c4382f"),
        ("5Kd3NBUAdUnhyzenEwVLy9pBKxSwXvE9FMPyR4UKZvpe6E3AgLr",
         "80eddbdc1168f1daeadbd3e44c1e3f8f5a284c2029f78ad26af98583a499de5b19"),
        ("Kz6UJmQACJmLtaQj5A3JAge4kVTNQ8gbvXuwbmCj7bsaabudb3RD",
         "8055c9bccb9ed68446d1b75273bbce89d7fe013a8acd1625514420fb2aca1a21c401"),
        ("9213qJab2HNEpMpYNBa7wHGFKKbkDn24jpANDs2huN3yi4J11ko",
         "ef36cb93b9ab1bdabf7fb9f2c04f1b9cc879933530ae7842398eef5a63a56800c2"),
        ("cTpB4YiyKiBcPxnefsDpbnDxFDffjqJob8wGCEDXxgQ7zQoMXJdH",
         "efb9f4892c9e8282028fea1d2667c4dc5213564d41fc5783896a0d843fc15089f301"),
        ("1Ax4gZtb7gAit2TivwejZHYtNNLT18PUXJ", "006d23156cbbdcc82a5a47eee4c2c7c583c18b6bf4"),
        ("3QjYXhTkvuj8qPaXHTTWb5wjXhdsLAAWVy", "05fcc5460dd6e2487c7d75b1963625da0e8f4c5975"),
        ("n3ZddxzLvAY9o7184TB4c6FJasAybsw4HZ", "6ff1d470f9b02370fdec2e6b708b08ac431bf7a5f7"),
        ("2NBFNJTktNa7GZusGbDbGKRZTxdK9VVez3n", "c4c579342c2c4c9220205e2cdc285617040c924a0a"),
        ("19dcawoKcZdQz365WpXWMhX6QCUpR9SY4r", "005eadaf9bb7121f0f192561a5a62f5e5f54210292"),
        ("13p1ijLwsnrcuyqcTvJXkq2ASdXqcnEBLE", "001ed467017f043e91ed4c44b4e8dd674db211c4e6"),
        ("3ALJH9Y951VCGcVZYAdpA3KchoP9McEj1G", "055ece0cadddc415b1980f001785947120acdb36fc"),
    ]

    @Test("bs58check's vectors encode and decode both ways")
    func bs58checkVectors() throws {
        for (text, payload) in Self.bs58checkVectors {
            #expect(Base58Check.encode(hex(payload)) == text, "\(payload)")
            #expect(try Base58Check.decode(text) == hex(payload), "\(text)")
        }
    }

    @Test("bs58check's invalid vectors: bad checksums and a non-base58 character")
    func bs58checkInvalidVectors() {
        for text in ["Z9inZq4e2HGQRZQezDjFMmqgUE8NwMRok", "3HK7MezAm6qEZQUMPRf8jX7wDv6zig6Ky8",
                     "3AW8j12DUk8mgA7kkfZ1BrrzCVFuH1LsXS"] {
            #expect(throws: Base58Error.checksumMismatch) { try Base58Check.decode(text) }
        }
        #expect(throws: Base58Error.invalidCharacter(offset: 0)) { try Base58Check.decode("#####") }
    }

    @Test("the checksum is the first four bytes of SHA-256(SHA-256(payload))")
    func checksumByHand() {
        // SHA-256(SHA-256("")) = 5df6e0e2761359d30a8275058e299fcc0381534545f55cf43e41983f5d4c9456
        #expect(hexString(Base58Check.checksum([])) == "5df6e0e2")
        #expect(Base58Check.encode([]) == Base58.encode(hex("5df6e0e2")))
    }

    @Test("characters outside the alphabet are refused at their offset: 0, O, I, l, space, non-ASCII")
    func invalidCharacters() {
        for (text, offset) in [("10", 1), ("O", 0), ("2I", 1), ("abl", 2), (" 2g", 0), ("2g ", 2), ("2gé", 2), ("-1", 0)] {
            #expect(throws: Base58Error.invalidCharacter(offset: offset), "\(text)") { try Base58.decode(text) }
        }
    }

    @Test("strings longer than the limit are refused before any work")
    func tooLong() {
        let text = String(repeating: "z", count: Base58.maxEncodedLength + 1)
        #expect(throws: Base58Error.tooLong(length: Base58.maxEncodedLength + 1, limit: Base58.maxEncodedLength)) {
            try Base58.decode(text)
        }
        #expect(throws: Never.self) { try Base58.decode(String(repeating: "z", count: Base58.maxEncodedLength)) }
    }

    @Test("base58check needs four checksum bytes")
    func missingChecksum() {
        #expect(throws: Base58Error.missingChecksum(length: 0)) { try Base58Check.decode("") }
        #expect(throws: Base58Error.missingChecksum(length: 3)) { try Base58Check.decode("aPEr") }
    }

    @Test("any payload round-trips, leading zeros included; a changed digit fails the checksum")
    func roundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<80 {
            let zeros = length % 4
            let payload = [UInt8](repeating: 0, count: zeros) + (zeros..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(try Base58.decode(Base58.encode(payload)) == payload)
            let text = Base58Check.encode(payload)
            #expect(try Base58Check.decode(text) == payload)
            var changed = Array(text.utf8)
            changed[changed.count - 1] = changed[changed.count - 1] == UInt8(ascii: "z") ? UInt8(ascii: "y") : UInt8(ascii: "z")
            #expect(throws: Base58Error.checksumMismatch) { try Base58Check.decode(String(decoding: changed, as: UTF8.self)) }
        }
    }
}

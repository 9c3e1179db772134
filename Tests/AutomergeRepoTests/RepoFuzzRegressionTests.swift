import Foundation
import Testing
@testable import AutomergeRepoProtocol

/// One test per bug found through the `repo-message` fuzz target, named
/// after its input in `Corpus/repo-message/` (which the corpus replay in
/// `AutomergeTests` runs through the target itself).
@Suite("repo-message fuzz regressions")
struct RepoFuzzRegressionTests {
    static func corpusFile(_ name: String) throws -> [UInt8] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return [UInt8](try Data(contentsOf: root.appendingPathComponent("Corpus/repo-message/\(name)")))
    }

    func decoding(_ bytes: [UInt8]) -> CBORError? {
        do {
            _ = try CBORValue.decode(bytes)
            return nil
        } catch {
            return error
        }
    }

    /// Every NaN is written `f97e00`, but `Double`'s `==` made each NaN map
    /// key new to the decoder: `{NaN: 0, NaN: 0}` decoded, and its encoding
    /// repeated a key (not CBOR any more). Every NaN key also hashed alike,
    /// so n of them took n² comparisons: 40,000 (160 KB) took 29 s in the
    /// fuzzer's ASan build. Now NaN equals NaN in `CBORValue`, and the second
    /// NaN key is a duplicate.
    @Test func nanMapKeysRepeatAKey() throws {
        let corpus = try Self.corpusFile("nan-map-keys-repeat-a-key")
        #expect(decoding(corpus) == .duplicateMapKey(offset: 5))
        #expect(throws: RepoMessageError.invalidCBOR(.duplicateMapKey(offset: 5))) { try RepoMessage(decoding: corpus) }

        // NaNs of other widths and payloads are the same key; so are keys that hold NaNs.
        #expect(decoding(hex("a2 f97e00 00 fa7fc00001 00")) == .duplicateMapKey(offset: 5))
        #expect(decoding(hex("a2 fbfff8000000000000 00 f97e01 00")) == .duplicateMapKey(offset: 11))
        #expect(decoding(hex("a2 81f97e00 00 81fb7ff8000000000001 00")) == .duplicateMapKey(offset: 6))
        #expect(decoding(hex("a2 f97e00 00 f97c00 00")) == nil, "NaN and infinity are two keys")

        // A hundred thousand NaN keys: refused at the second.
        let many = hex("ba 000186a0") + Array([[UInt8]](repeating: hex("f97e00 00"), count: 100_000).joined())
        #expect(decoding(many) == .duplicateMapKey(offset: 9))

        // An item holding a NaN is equal to itself, with the hash of its re-decoding.
        let item = try CBORValue.decode(hex("82 f97e00 fa7fc00000"))
        let again = try CBORValue.decode(item.encoded())
        #expect(item == again && item.hashValue == again.hashValue)
        #expect(CBORValue.float(0) == .float(-0.0) && CBORValue.float(0).hashValue == CBORValue.float(-0.0).hashValue)
        #expect(CBORValue.float(.nan) != .unsigned(0) && CBORValue.float(1) != .float(.nan))
    }
}

@testable import AutomergeRepoProtocol

/// CBOR bytes put together by hand, the way cbor-x lays out a JavaScript
/// object: one map head, then each property's key and value in the order the
/// object literal has them. Written apart from `CBORWriter` so that the
/// decoder is checked against bytes it did not make.
enum HandCBOR {
    /// A head of major type `major` with argument `count`, in the shortest form.
    static func head(_ major: UInt8, _ count: Int) -> [UInt8] {
        let type = major << 5
        switch count {
        case 0..<24: return [type | UInt8(count)]
        case 24..<256: return [type | 24, UInt8(count)]
        default:
            precondition(count < 65536, "HandCBOR writes short items only")
            return [type | 25, UInt8(count >> 8), UInt8(count & 0xff)]
        }
    }

    /// A text string: major type 3, then its UTF-8.
    static func text(_ string: String) -> [UInt8] { head(3, string.utf8.count) + Array(string.utf8) }

    /// A byte string: major type 2 (cbor-x with `tagUint8Array: false` writes a Uint8Array so).
    static func bytes(_ data: [UInt8]) -> [UInt8] { head(2, data.count) + data }

    /// An array of the items given.
    static func array(_ items: [[UInt8]]) -> [UInt8] { head(4, items.count) + items.flatMap { $0 } }

    /// A map of text keys to the values given, in order.
    static func map(_ entries: KeyValuePairs<String, [UInt8]>) -> [UInt8] {
        head(5, entries.count) + entries.flatMap { text($0.key) + $0.value }
    }

    static let `true`: [UInt8] = [0xf5]
    static let `false`: [UInt8] = [0xf4]
    static let null: [UInt8] = [0xf6]
    /// What cbor-x writes for a property whose value is `undefined`.
    static let undefined: [UInt8] = [0xf7]
}

/// Ids used across the message tests.
enum Sample {
    /// automerge-repo's `goodDocumentId` (test/AutomergeUrl.test.ts).
    static let documentIdText = "4NMNnkMhL8jXrdJ9jamS58PAVdXu"
    static let documentId = try! DocumentId(documentIdText)
    static let client: PeerId = "client-3c2e"
    static let server: PeerId = "storage-server-sync-automerge-org"
    static let clientStorage: StorageId = "a1b2c3d4-storage"
    static let otherStorage: StorageId = "e5f6a7b8-storage"
    /// The first bytes of an Automerge sync message (its type byte 0x42), enough for the tests.
    static let syncData: [UInt8] = [0x42, 0x00, 0x00, 0x01, 0x00]
}

/// The error that decoding `bytes` throws, or `nil` when they decode.
func decodingError(_ bytes: [UInt8], maximumSize: Int = RepoMessage.defaultMaximumSize) -> RepoMessageError? {
    do {
        _ = try RepoMessage(decoding: bytes, maximumSize: maximumSize)
        return nil
    } catch {
        return error
    }
}

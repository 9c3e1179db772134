import Automerge
import Crypto
import Foundation

/// A document's root map as JSON-like values: the body and the store's
/// reserved entries (`_attachments`, `_deleted`). Every write stores it as
/// JSON in `documents.body` beside the Automerge bytes, in the same
/// transaction, so that reading the current revision (get, list, find,
/// index upkeep) decodes JSON instead of loading the Automerge document.
///
/// Stored as the first 8 bytes of the JSON's SHA-256, then the JSON: a
/// damaged page inside a string would otherwise still read as JSON, with
/// other text (the Automerge bytes have their chunk checksums).
struct StoredView {
    var root: [ExactString: BodyValue]

    /// The view of `document` as it stands.
    init(of document: Document) throws {
        var root: [ExactString: BodyValue] = [:]
        for (key, value) in try document.mapEntries(obj: .ROOT) { root[ExactString(key)] = try BodyReader.read(value, in: document) }
        self.root = root
    }

    /// The view stored for `docId`.
    /// - Throws: ``StoreError/corruptDocument(docId:reason:)`` when it fails
    ///   its checksum or is not a JSON map.
    init(stored: Data, docId: String) throws {
        let json = stored.dropFirst(Self.checksumLength)
        guard stored.count > Self.checksumLength, stored.prefix(Self.checksumLength).elementsEqual(Self.checksum(of: json)) else {
            throw StoreError.corruptDocument(docId: docId, reason: "its stored body fails its checksum")
        }
        guard case .map(let root)? = try? BodyJSON.decode(Data(json)) else {
            throw StoreError.corruptDocument(docId: docId, reason: "its stored body is not a JSON map")
        }
        self.root = root
    }

    /// The checksum and the JSON, as stored.
    var stored: Data {
        get throws {
            let json = try BodyJSON.encode(.map(root))
            var stored = Data(capacity: Self.checksumLength + json.count)
            Self.checksum(of: json).withUnsafeBytes { stored.append(contentsOf: $0) }
            stored.append(json)
            return stored
        }
    }

    private static let checksumLength = 8

    private static func checksum(of json: some DataProtocol) -> [UInt8] {
        SHA256.hash(data: json).withUnsafeBytes { Array($0.prefix(checksumLength)) }
    }

    /// The body: the root without the reserved keys.
    var body: [ExactString: BodyValue] { root.filter { !StoredLayout.isReserved($0.key.string) } }

    var deleted: Bool { root[ExactString(StoredLayout.deletedKey)] == .bool(true) }

    var attachments: [ExactString: AttachmentMetadata] {
        guard case .map(let entries)? = root[ExactString(StoredLayout.attachmentsKey)] else { return [:] }
        return entries.compactMapValues(AttachmentMetadata.init)
    }

    /// The body queries see: the body with `_id` and `_rev`.
    func queryBody(docId: String, revId: String) -> BodyValue {
        var body = body
        body["_id"] = .string(docId)
        body["_rev"] = .string(revId)
        return .map(body)
    }
}

extension AttachmentMetadata {
    /// The metadata an `_attachments` entry holds, nil when it is malformed.
    init?(_ value: BodyValue) {
        // One field at a time: the optimizer's type checker gave up on the
        // four patterns over literal `ExactString` keys in one condition.
        guard case .map(let fields) = value else { return nil }
        let contentType: BodyValue? = fields[ExactString("content_type")]
        let lengthField: BodyValue? = fields[ExactString("length")]
        let digestField: BodyValue? = fields[ExactString("digest")]
        let revposField: BodyValue? = fields[ExactString("revpos")]
        guard case .string(let type)? = contentType, case .int(let length)? = lengthField,
              case .string(let digest)? = digestField, case .int(let revpos)? = revposField
        else { return nil }
        self.init(type: type, length: length, digest: digest, revpos: revpos)
    }
}

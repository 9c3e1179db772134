import Automerge
import Foundation

/// A document's root map as JSON-like values: the body and the store's
/// reserved entries (`_attachments`, `_deleted`). Every write stores it as
/// JSON in `documents.body` beside the Automerge bytes, in the same
/// transaction, so that reading the current revision (get, list, find,
/// index upkeep) decodes JSON instead of loading the Automerge document.
struct StoredView {
    var root: [String: BodyValue]

    /// The view of `document` as it stands.
    init(of document: Document) throws {
        var root: [String: BodyValue] = [:]
        for (key, value) in try document.mapEntries(obj: .ROOT) { root[key] = try BodyReader.read(value, in: document) }
        self.root = root
    }

    /// The view stored for `docId`.
    /// - Throws: ``StoreError/corruptDocument(docId:reason:)`` when it is not a JSON map.
    init(json: Data, docId: String) throws {
        guard case .map(let root)? = try? BodyJSON.decode(json) else {
            throw StoreError.corruptDocument(docId: docId, reason: "its stored body is not a JSON map")
        }
        self.root = root
    }

    var json: Data {
        get throws { try BodyJSON.encode(.map(root)) }
    }

    /// The body: the root without the reserved keys.
    var body: [String: BodyValue] { root.filter { !StoredLayout.isReserved($0.key) } }

    var deleted: Bool { root[StoredLayout.deletedKey] == .bool(true) }

    var attachments: [String: AttachmentMetadata] {
        guard case .map(let entries)? = root[StoredLayout.attachmentsKey] else { return [:] }
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
        guard case .map(let fields) = value, case .string(let type)? = fields["content_type"],
            case .int(let length)? = fields["length"], case .string(let digest)? = fields["digest"],
            case .int(let revpos)? = fields["revpos"]
        else { return nil }
        self.init(type: type, length: length, digest: digest, revpos: revpos)
    }
}

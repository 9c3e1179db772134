import Automerge
import Foundation

/// How a datastore document lives in its Automerge document, so that
/// everything about it replicates with it: the body is the root map; top-level
/// keys starting with `_` are the store's (as in CouchDB) and a body may not
/// use them:
/// - `_attachments`: a map from attachment name to a map of `content_type`,
///   `length`, `digest` (`sha256-` and 64 hex digits) and `revpos` (the
///   generation that added it).
/// - `_deleted`: `true` once the document is deleted (the body is emptied).
enum StoredLayout {
    static let attachmentsKey = "_attachments"
    static let deletedKey = "_deleted"

    /// Whether `key`'s first scalar is `_` (`hasPrefix` compares
    /// characters: "_\u{301}" would not start with "_").
    static func isReserved(_ key: String) -> Bool { key.unicodeScalars.first == "_" }

    /// How deep a body may nest below its top-level map: Automerge's bound
    /// (objects at most 256 levels below the root), checked before any of
    /// the code that recurses once per level (edits, the JSON view, the
    /// matcher) sees the body. A test writes and reads a body at the limit.
    static let maximumDepth = 255

    /// Checks that a body can be stored: a map whose top-level keys are not
    /// reserved, holding only finite numbers.
    static func validate(_ body: BodyValue) throws -> [ExactString: BodyValue] {
        guard case .map(let entries) = body else { throw StoreError.invalidBody("the body must be a map") }
        if let key = entries.keys.first(where: { isReserved($0.string) }) {
            throw StoreError.invalidBody("top-level keys starting with '_' are reserved: '\(key)'")
        }
        if let problem = body.problem(maximumDepth: maximumDepth) { throw StoreError.invalidBody(problem) }
        return entries
    }

    /// The root's reserved entries, as JSON-like values.
    static func reservedEntries(of document: Document) throws -> [ExactString: BodyValue] {
        var entries: [ExactString: BodyValue] = [:]
        for key in document.keys(obj: .ROOT) where isReserved(key) {
            entries[ExactString(key)] = try document.get(obj: .ROOT, key: key).map { try BodyReader.read($0, in: document) }
        }
        return entries
    }

    /// The attachments' metadata as stored.
    static func attachments(of document: Document) throws -> [ExactString: AttachmentMetadata] {
        guard let value = try document.get(obj: .ROOT, key: attachmentsKey),
            case .map(let entries) = try BodyReader.read(value, in: document)
        else { return [:] }
        return entries.compactMapValues(AttachmentMetadata.init)
    }

    /// Every attachment the document holds, the values its conflicts hide
    /// included: concurrent writes of one name, or of the `_attachments`
    /// map itself. A later change can bring a hidden value back (a peer
    /// deletes the winner), so a replica keeps the bytes of each one, and
    /// a replication announces and fetches them all; otherwise a replica
    /// could end up naming bytes that no peer it meets still offers.
    static func everyAttachment(of document: Document) throws -> Set<AttachmentMetadata> {
        var found = Set<AttachmentMetadata>()
        for case .Object(let map, .Map) in try document.getAll(obj: .ROOT, key: attachmentsKey) {
            for name in document.keys(obj: map) {
                for value in try document.getAll(obj: map, key: name) {
                    if let metadata = AttachmentMetadata(try BodyReader.read(value, in: document)) { found.insert(metadata) }
                }
            }
        }
        return found
    }

    /// Makes the stored attachments `attachments`, touching only the entries that differ.
    static func write(_ attachments: [ExactString: AttachmentMetadata], into document: Document) throws {
        let current = try Self.attachments(of: document)
        if current == attachments { return }
        let map: ObjId
        if case .Object(let existing, .Map)? = try document.get(obj: .ROOT, key: attachmentsKey) {
            map = existing
        } else {
            map = try document.putObject(obj: .ROOT, key: attachmentsKey, ty: .Map)
        }
        for name in document.keys(obj: map) where attachments[ExactString(name)] == nil {
            try document.delete(obj: map, key: name)
        }
        // A changed entry is a new map, not the old one's fields edited:
        // concurrent changes of one attachment (a merge, a replication)
        // then keep one side's entry whole, never one side's digest with
        // the other's length.
        for (name, metadata) in attachments.sorted(by: { $0.key < $1.key }) where current[name] != metadata {
            try BodyWriter.replace(.key(map, name.string), with: metadata.bodyValue, of: document)
        }
    }
}

/// What the document records about one attachment. Equal when their
/// stored forms are (strings by their Unicode scalars).
struct AttachmentMetadata: Hashable, Sendable {
    var type: String
    var length: Int64
    /// `sha256-` and the blob's 64 lowercase hex digits.
    var digest: String
    var revpos: Int64

    var bodyValue: BodyValue {
        ["content_type": .string(type), "length": .int(length), "digest": .string(digest), "revpos": .int(revpos)]
    }

    static func == (a: AttachmentMetadata, b: AttachmentMetadata) -> Bool { a.bodyValue == b.bodyValue }

    func hash(into hasher: inout Hasher) { hasher.combine(bodyValue) }

    /// Whether it names these bytes under this type (so that an unchanged attachment keeps its `revpos`).
    func holds(digest: String, type: String) -> Bool {
        ExactString(self.digest) == ExactString(digest) && ExactString(self.type) == ExactString(type)
    }

    /// The blob's SHA-256 as hex, when the digest has the expected form.
    var sha256: String? { BlobStore.sha256Hex(ofDigest: digest) }
}

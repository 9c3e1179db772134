import Automerge
import Foundation

/// One revision of a datastore document: what a read returns and what a
/// write takes. Change the body and attachments of a revision you read and
/// pass it to ``Datastore/updateDocumentFromRevision(_:options:)``; create new
/// documents from ``init(docId:)``, as `DocumentRevision(docId:)` or `DocumentRevision()`.
///
/// A reference type, as in Cloudant Sync, so that `rev.body["done"] = true`
/// works on a `let`. Safe to share between threads: each read or write of
/// a property is atomic. A read-modify-write such as `rev.body["done"] =
/// true` is two of them, so two threads doing that at once keep one edit.
public final class DocumentRevision: @unchecked Sendable {
    // @unchecked: every stored field lives in `fields`, read and written only under `lock`.
    private let lock = NSLock()
    private var fields: Fields

    private struct Fields {
        var docId: String?
        var revId: String?
        var deleted: Bool
        var sequence: Int64
        var body: BodyValue
        var attachments: Attachments
        var hasBody: Bool
        var datastore: Datastore?
    }

    /// The document id; nil until a create assigns one.
    public var docId: String? {
        get { lock.withLock { fields.docId } }
        set { lock.withLock { fields.docId = newValue } }
    }
    /// The revision id, `<generation>-<digest of the Automerge heads>`; nil for a new revision.
    public internal(set) var revId: String? {
        get { lock.withLock { fields.revId } }
        set { lock.withLock { fields.revId = newValue } }
    }
    /// Whether this revision is a deletion.
    public internal(set) var deleted: Bool {
        get { lock.withLock { fields.deleted } }
        set { lock.withLock { fields.deleted = newValue } }
    }
    /// The datastore's sequence number of the write that made this revision (0 for a new one).
    public internal(set) var sequence: Int64 {
        get { lock.withLock { fields.sequence } }
        set { lock.withLock { fields.sequence = newValue } }
    }
    /// The body: a map. Required for a create.
    public var body: BodyValue {
        get { lock.withLock { fields.body } }
        set {
            lock.withLock {
                fields.body = newValue
                fields.hasBody = true
            }
        }
    }
    /// The attachments, by name.
    public var attachments: Attachments {
        get { lock.withLock { fields.attachments } }
        set { lock.withLock { fields.attachments = newValue } }
    }
    /// Whether the body was ever set (a create needs one).
    var hasBody: Bool { lock.withLock { fields.hasBody } }
    /// The datastore it was read from or saved to, where its Automerge
    /// document is loaded from on demand (nil for a new revision).
    var datastore: Datastore? {
        get { lock.withLock { fields.datastore } }
        set { lock.withLock { fields.datastore = newValue } }
    }

    /// A new document with the given id (nil: one is generated when it is created).
    public init(docId: String? = nil) {
        fields = Fields(docId: docId, revId: nil, deleted: false, sequence: 0, body: [:], attachments: [:], hasBody: false,
                        datastore: nil)
    }

    init(docId: String, revId: String, deleted: Bool, sequence: Int64, body: [ExactString: BodyValue],
         attachments: Attachments, datastore: Datastore?)
    {
        fields = Fields(docId: docId, revId: revId, deleted: deleted, sequence: sequence, body: .map(body),
                        attachments: attachments, hasBody: true, datastore: datastore)
    }
}

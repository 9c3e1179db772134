import Automerge
import Foundation

/// One revision of a datastore document: what a read returns and what a
/// write takes. Change the body and attachments of a revision you read and
/// pass it to ``Datastore/updateDocumentFromRevision(_:options:)``; create new
/// documents from ``init(docId:)``, as `DocumentRevision(docId:)` or `DocumentRevision()`.
///
/// A reference type, as in Cloudant Sync, so that `rev.body["done"] = true`
/// works on a `let`. Not meant to be shared between threads while mutated.
public final class DocumentRevision: @unchecked Sendable {
    /// The document id; nil until a create assigns one.
    public var docId: String?
    /// The revision id, `<generation>-<digest of the Automerge heads>`; nil for a new revision.
    public internal(set) var revId: String?
    /// Whether this revision is a deletion.
    public internal(set) var deleted: Bool
    /// The datastore's sequence number of the write that made this revision (0 for a new one).
    public internal(set) var sequence: Int64
    /// The body: a map. Required for a create.
    public var body: BodyValue {
        didSet { hasBody = true }
    }
    /// The attachments, by name.
    public var attachments: Attachments
    /// Whether the body was ever set (a create needs one).
    var hasBody: Bool
    /// The datastore it was read from or saved to, where its Automerge
    /// document is loaded from on demand (nil for a new revision).
    var datastore: Datastore?

    /// A new document with the given id (nil: one is generated when it is created).
    public init(docId: String? = nil) {
        self.docId = docId
        revId = nil
        deleted = false
        sequence = 0
        body = [:]
        attachments = [:]
        hasBody = false
        datastore = nil
    }

    init(docId: String, revId: String, deleted: Bool, sequence: Int64, body: [ExactString: BodyValue],
         attachments: Attachments, datastore: Datastore?)
    {
        self.datastore = datastore
        self.docId = docId
        self.revId = revId
        self.deleted = deleted
        self.sequence = sequence
        self.body = .map(body)
        self.attachments = attachments
        hasBody = true
    }
}

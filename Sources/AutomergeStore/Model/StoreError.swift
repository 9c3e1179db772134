import Foundation

/// Everything a datastore call can fail with. A failed call changes nothing.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A datastore name that does not match `^[a-zA-Z]+[a-zA-Z0-9_]*$`.
    case invalidDatastoreName(String)
    /// A revision without a body (the only property a create needs).
    case bodyRequired
    /// A body that cannot be stored: not a map at the top, a reserved key
    /// (top-level keys starting with `_`), a non-finite number, bad JSON.
    case invalidBody(String)
    /// A document id that is empty or starts with `_`.
    case invalidDocumentId(String)
    /// A create with an id the datastore already has.
    case documentExists(docId: String)
    /// No document with this id (or no such revision of it).
    case documentNotFound(docId: String, revId: String? = nil)
    /// An update or delete from a revision that is not the current one
    /// (and no merge was asked for).
    case conflict(docId: String, currentRevId: String, givenRevId: String?)
    /// An update or delete of a deleted document.
    case documentDeleted(docId: String)
    /// A revision id that is not `<generation>-<32 hex digits>`.
    case invalidRevisionId(String)
    /// An attachment whose bytes cannot be read, or whose blob is missing
    /// or does not match its digest.
    case attachmentUnreadable(docId: String?, name: String, reason: String)
    /// An attachment name that is empty.
    case invalidAttachmentName(String)
    /// A stored document that cannot be read (a corrupt page, bytes that
    /// do not load); other documents stay readable.
    case corruptDocument(docId: String, reason: String)
    /// SQLite or the file system failed.
    case storage(String)

    public var description: String {
        switch self {
        case .invalidDatastoreName(let name):
            return "invalid datastore name '\(name)': names match ^[a-zA-Z]+[a-zA-Z0-9_]*$"
        case .bodyRequired: return "a document needs a body"
        case .invalidBody(let reason): return "invalid body: \(reason)"
        case .invalidDocumentId(let id): return "invalid document id '\(id)': ids are non-empty and do not start with '_'"
        case .documentExists(let id): return "document '\(id)' already exists"
        case .documentNotFound(let id, let rev):
            return rev.map { "document '\(id)' has no revision '\($0)'" } ?? "document '\(id)' not found"
        case .conflict(let id, let current, let given):
            return "conflict: document '\(id)' is at revision \(current), not \(given ?? "(none)")"
        case .documentDeleted(let id): return "document '\(id)' is deleted"
        case .invalidRevisionId(let rev): return "invalid revision id '\(rev)'"
        case .attachmentUnreadable(let id, let name, let reason):
            return "attachment '\(name)'\(id.map { " of document '\($0)'" } ?? ""): \(reason)"
        case .invalidAttachmentName(let name): return "invalid attachment name '\(name)'"
        case .corruptDocument(let id, let reason): return "document '\(id)' cannot be read: \(reason)"
        case .storage(let reason): return "storage error: \(reason)"
        }
    }
}

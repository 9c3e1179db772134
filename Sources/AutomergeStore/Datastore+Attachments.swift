import Foundation
import GRDB

extension Datastore {
    /// The metadata a write stores for `attachments`: new bytes are written
    /// to the blob folder (once per content); saved attachments of this
    /// datastore are named again without copying; saved attachments of
    /// another datastore are copied in. An attachment whose name and bytes
    /// are unchanged keeps its `revpos`.
    func storedAttachments(_ attachments: Attachments, current: [ExactString: AttachmentMetadata], generation: Int64,
                           docId: String) throws -> [ExactString: AttachmentMetadata]
    {
        var result: [ExactString: AttachmentMetadata] = [:]
        for (text, attachment) in attachments {
            guard !text.isEmpty else { throw StoreError.invalidAttachmentName(text) }
            let name = ExactString(text)
            let digest: String
            let length: Int64
            if let saved = attachment as? SavedAttachment, saved.blobs.directory == blobs.directory {
                // Kept as it is: the bytes are not touched, so a body-only
                // update costs nothing per attachment (and does not fail
                // for a blob lost meanwhile; reading it names the loss).
                if let existing = current[name], existing.holds(digest: saved.digest, type: saved.type) {
                    result[name] = existing
                    continue
                }
                guard blobs.contains(digest: saved.digest, length: saved.length) else {
                    throw StoreError.attachmentUnreadable(docId: saved.docId, name: saved.name, reason: "its blob is missing")
                }
                (digest, length) = (saved.digest, saved.length)
            } else {
                let data = try attachment.dataFromAttachmentContent()
                (digest, length) = (try blobs.write(data), Int64(data.count))
            }
            if let existing = current[name], existing.holds(digest: digest, type: attachment.type) {
                result[name] = existing
            } else {
                result[name] = AttachmentMetadata(type: attachment.type, length: length, digest: digest, revpos: generation)
            }
        }
        return result
    }

    /// Removes attachment blobs that no revision of any document names
    /// (left by failed writes), and temporary files. Returns how many files went.
    @discardableResult
    public func compact() throws -> Int {
        try write { db in
            let referenced = Set(try String.fetchAll(db, sql: "SELECT DISTINCT digest FROM blob_refs"))
            return try blobs.removeAll(except: referenced)
        }
    }
}

import Crypto
import Foundation

/// A named blob with a MIME type, attached to a document revision.
///
/// New attachments are ``UnsavedDataAttachment`` (bytes in memory) or
/// ``UnsavedFileAttachment`` (a file on disk); revisions read from a
/// datastore hold ``SavedAttachment``s, which can be put on other revisions
/// and documents without copying their bytes.
public protocol Attachment: Sendable {
    /// The attachment's name, its key in ``DocumentRevision/attachments``.
    var name: String { get }
    /// Its MIME type, such as `image/jpeg`.
    var type: String { get }
    /// Its bytes.
    /// - Throws: ``StoreError/attachmentUnreadable(docId:name:reason:)``.
    func dataFromAttachmentContent() throws -> Data
}

/// An attachment whose bytes are in memory.
public struct UnsavedDataAttachment: Attachment {
    public let name: String
    public let type: String
    /// The bytes to store.
    public let data: Data

    public init(data: Data, name: String, type: String) {
        self.data = data
        self.name = name
        self.type = type
    }

    public func dataFromAttachmentContent() throws -> Data { data }
}

/// An attachment whose bytes are read from a file when the revision is saved.
public struct UnsavedFileAttachment: Attachment {
    public let name: String
    public let type: String
    /// The file to read.
    public let path: String

    public init(path: String, name: String, type: String) {
        self.path = path
        self.name = name
        self.type = type
    }

    public func dataFromAttachmentContent() throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw StoreError.attachmentUnreadable(docId: nil, name: name, reason: "cannot read '\(path)'")
        }
    }
}

/// An attachment as a datastore holds it: its metadata, and its bytes in
/// the datastore's blob folder, stored once per content.
public struct SavedAttachment: Attachment {
    public let name: String
    public let type: String
    /// The length in bytes.
    public let length: Int64
    /// `sha256-` followed by the content's SHA-256 in hex.
    public let digest: String
    /// The generation of the revision that added these bytes under this name.
    public let revpos: Int64
    /// The document it was read from.
    public let docId: String
    let blobs: BlobStore

    /// The bytes, checked against the digest.
    public func dataFromAttachmentContent() throws -> Data {
        do throws(BlobStore.ReadError) {
            return try blobs.read(digest: digest, length: length)
        } catch {
            throw StoreError.attachmentUnreadable(docId: docId, name: name, reason: error.description)
        }
    }

    var metadata: AttachmentMetadata { AttachmentMetadata(type: type, length: length, digest: digest, revpos: revpos) }
}

extension Sequence<UInt8> {
    /// The bytes as lowercase hex digits.
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

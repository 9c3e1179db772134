import Foundation

/// The attachment bytes a replication has asked the peer for, and the
/// frames of the documents that wait for them: a document's frames are
/// applied, in arrival order, once every blob it names is here, so that a
/// revision a replication stores never names bytes the store lacks.
/// Document ids and digests are told apart by their scalars.
struct AttachmentWaits {
    /// Frames of documents waiting for blobs, in arrival order.
    private var held: [ExactString: [ReplicationMessage]] = [:]
    /// The blobs each waiting document lacks.
    private var lacking: [ExactString: Set<ExactString>] = [:]
    private var asked = Set<ExactString>()

    var isEmpty: Bool { held.isEmpty && asked.isEmpty }

    func isWaiting(_ docId: String) -> Bool { held[ExactString(docId)] != nil }

    /// Whether the blob `digest` was asked for and has not arrived.
    func requested(_ digest: String) -> Bool { asked.contains(ExactString(digest)) }

    /// Holds a frame of `docId`, which waits for `missing` too (when given).
    /// Returns the blobs not asked for yet, to ask for.
    mutating func hold(_ message: ReplicationMessage, of docId: String, missing: [AttachmentDigest]) -> [String] {
        held[ExactString(docId), default: []].append(message)
        return wait(for: missing, docId: docId)
    }

    /// Records that `docId` (when given) waits for `missing`. Returns the
    /// blobs not asked for yet.
    mutating func wait(for missing: [AttachmentDigest], docId: String?) -> [String] {
        var toRequest: [String] = []
        for attachment in missing {
            let digest = ExactString(attachment.digest)
            if let docId { lacking[ExactString(docId), default: []].insert(digest) }
            if asked.insert(digest).inserted { toRequest.append(attachment.digest) }
        }
        return toRequest
    }

    /// A requested blob arrived, or the peer lacks it. Returns the frames
    /// of the documents no longer waiting, each document's in order.
    mutating func arrived(_ digest: String) -> [(docId: String, message: ReplicationMessage)] {
        let digest = ExactString(digest)
        asked.remove(digest)
        var released: [(String, ReplicationMessage)] = []
        for docId in lacking.keys.sorted() {
            lacking[docId]!.remove(digest)
            guard lacking[docId]!.isEmpty else { continue }
            lacking[docId] = nil
            for message in held.removeValue(forKey: docId) ?? [] { released.append((docId.string, message)) }
        }
        return released
    }
}

import Foundation

/// The attachment bytes a replication has asked the peer for, and the
/// frames of the documents that wait for them: a document's frames are
/// applied, in arrival order, once every blob it names is here, so that a
/// revision a replication stores never names bytes the store lacks.
struct AttachmentWaits {
    /// Frames of documents waiting for blobs, in arrival order.
    private var held: [String: [ReplicationMessage]] = [:]
    /// The blobs each waiting document lacks.
    private var lacking: [String: Set<String>] = [:]
    private(set) var requested = Set<String>()

    var isEmpty: Bool { held.isEmpty && requested.isEmpty }

    func isWaiting(_ docId: String) -> Bool { held[docId] != nil }

    /// Holds a frame of `docId`, which waits for `missing` too (when given).
    /// Returns the blobs not asked for yet, to ask for.
    mutating func hold(_ message: ReplicationMessage, of docId: String, missing: [AttachmentDigest]) -> [String] {
        held[docId, default: []].append(message)
        return wait(for: missing, docId: docId)
    }

    /// Records that `docId` (when given) waits for `missing`. Returns the
    /// blobs not asked for yet.
    mutating func wait(for missing: [AttachmentDigest], docId: String?) -> [String] {
        var toRequest: [String] = []
        for attachment in missing {
            if let docId { lacking[docId, default: []].insert(attachment.digest) }
            if requested.insert(attachment.digest).inserted { toRequest.append(attachment.digest) }
        }
        return toRequest
    }

    /// A requested blob arrived, or the peer lacks it. Returns the frames
    /// of the documents no longer waiting, each document's in order.
    mutating func arrived(_ digest: String) -> [(docId: String, message: ReplicationMessage)] {
        requested.remove(digest)
        var released: [(String, ReplicationMessage)] = []
        for docId in lacking.keys.sorted() {
            lacking[docId]!.remove(digest)
            guard lacking[docId]!.isEmpty else { continue }
            lacking[docId] = nil
            for message in held.removeValue(forKey: docId) ?? [] { released.append((docId, message)) }
        }
        return released
    }
}

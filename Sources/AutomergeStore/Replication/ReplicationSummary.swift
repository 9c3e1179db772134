import Foundation

/// What a replication did, from one side.
public struct ReplicationSummary: Hashable, Sendable {
    /// Documents this side sent changes of.
    public var documentsSent = 0
    /// Documents the peer's changes changed here (created, updated or deleted).
    public var documentsReceived = 0
    /// Attachment blobs sent to, and received from, the peer.
    public var attachmentsSent = 0
    public var attachmentsReceived = 0
    /// Attachments the peer asked for and this side lacked, or the reverse.
    public var attachmentsUnavailable = 0
    /// Bytes of frames sent and received (as ``ReplicationFrame/encodedLength``).
    public var bytesSent = 0
    public var bytesReceived = 0
    /// Document exchanges (one per document offered by either side, or
    /// per later write offered in continuous mode) and how many ended.
    public var changesTotal = 0
    public var changesProcessed = 0
    /// Whether every exchange ended (false when the replication was stopped first).
    public var completed = false

    public init() {}
}

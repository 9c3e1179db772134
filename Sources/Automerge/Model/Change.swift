#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A change of a document's history: a group of ops one actor committed.
public struct Change: Equatable, Sendable {
    /// The actor that made the change.
    public let actorId: ActorId
    /// The actor's sequence number for this change (1, 2, 3, ...).
    public let seq: UInt64
    /// The commit message, if any.
    public let message: String?
    /// The changes this one depends on, in the order the change stores them (by their bytes).
    public let deps: [ChangeHash]
    /// The commit time (the change's `time` field read as milliseconds).
    public let timestamp: Date
    /// The change as bytes (a compressed change chunk when over 256 bytes, as Rust's `Change::bytes`).
    public let bytes: Data
    /// The change's hash.
    public let hash: ChangeHash
}

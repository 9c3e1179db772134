import Foundation

/// Why a replication stopped before it completed. Whatever the error, what
/// each datastore had acknowledged is kept, every document a replication
/// wrote was written whole with the sync state that goes with it, and a
/// later replication converges.
public enum ReplicationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The connection broke, or the peer closed it before the replication ended.
    case connectionLost(String)
    /// The peer sent bytes that are not a frame.
    case malformedFrame(ReplicationFrameError)
    /// A frame longer than ``ReplicationFrame/maximumLength``.
    case frameTooLarge(Int)
    /// A frame arrived out of its place: one was lost, repeated or reordered.
    case outOfOrder(expected: UInt64, received: UInt64)
    /// The peer broke the protocol (a message out of turn, a document id
    /// or digest that is not valid, changes that do not apply, ...).
    case protocolViolation(String)
    /// The peer gave up and said why.
    case peerFailed(String)
    /// The peer sent nothing for the replicator's `timeout` while an
    /// answer was due.
    case timedOut(seconds: Double)
    /// The local datastore failed.
    case store(StoreError)

    public var description: String {
        switch self {
        case .connectionLost(let reason): return "replication connection lost: \(reason)"
        case .malformedFrame(let error): return "malformed replication frame: \(error)"
        case .frameTooLarge(let length):
            return "replication frame of \(length) bytes exceeds the limit of \(ReplicationFrame.maximumLength)"
        case .outOfOrder(let expected, let received):
            return "replication frame \(received) arrived where \(expected) was due: the transport lost, repeated or reordered frames"
        case .protocolViolation(let reason): return "replication protocol violated by the peer: \(reason)"
        case .peerFailed(let reason): return "the replication peer failed: \(reason)"
        case .timedOut(let seconds): return "the replication peer sent nothing for \(seconds) s while an answer was due"
        case .store(let error): return "replication failed in the local datastore: \(error)"
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A saved sync state could not be decoded (automerge-swift's name).
public struct DecodeSyncStateError: LocalizedError, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong with the bytes.
    public enum Reason: Equatable, Sendable {
        /// No bytes at all.
        case empty
        /// The first byte is not `0x43`, the sync state's type.
        case unknownType(UInt8)
        /// The heads are truncated or their count is a bad LEB128 number.
        case malformed(LoadError)
    }

    /// What is wrong with the bytes.
    public let reason: Reason

    init(_ reason: Reason) { self.reason = reason }

    public var description: String {
        switch reason {
        case .empty: return "empty sync state"
        case .unknownType(let byte): return "not a sync state: first byte is 0x\(String(byte, radix: 16)), expected 0x43"
        case .malformed(let error): return "malformed sync state: \(error)"
        }
    }

    public var errorDescription: String? { "Error decoding sync state: \(description)" }
}

/// A received sync message could not be applied (automerge-swift's name).
/// The document and the sync state are as they were before the call.
public struct ReceiveSyncError: LocalizedError, Equatable, Sendable, CustomStringConvertible {
    /// Why the message was refused.
    public enum Reason: Equatable, Sendable {
        /// The bytes are not a sync message.
        case invalidMessage(SyncMessageError)
        /// The changes (or document) the message carries do not decode or
        /// do not apply to this document.
        case changesRefused(AutomergeError)
    }

    /// Why the message was refused.
    public let reason: Reason

    init(_ reason: Reason) { self.reason = reason }

    public var description: String {
        switch reason {
        case .invalidMessage(let error): return "Invalid message: \(error)"
        case .changesRefused(let error): return "ReceiveSyncError: \(error)"
        }
    }

    public var errorDescription: String? { description }
}

import Automerge
import Foundation

/// One side of a sync session: a document and its sync state for one
/// peer, in this process (``LocalSyncPeer``) or in another implementation
/// driven through the sync-peer line protocol (``ProcessSyncPeer``).
public protocol SyncPeer: AnyObject {
    /// A short name for reports ("ours", "impl").
    var name: String { get }
    /// The next message, or nil when there is nothing to send.
    func generate() throws -> [UInt8]?
    /// Receives a message; throws ``SyncPeerError/refused(_:)`` when the peer refuses it.
    func receive(_ message: [UInt8]) throws
    /// The document's heads, sorted.
    func heads() throws -> [ChangeHash]
    /// The document, saved.
    func save() throws -> Data
    /// Puts `value` at the root key `key`, in a new change.
    func put(key: String, value: String) throws
    /// Splices the Text at the root key `key` (created if missing), in a new change.
    func splice(key: String, position: Int, delete: Int, text: String) throws
    /// Starts a fresh sync state (a new connection with no memory).
    func resetState() throws
    /// The sync state's persisted form.
    func encodeState() throws -> [UInt8]
    /// Replaces the sync state with a decoded one.
    func decodeState(_ bytes: [UInt8]) throws
    /// Read-only mode on or off; throws ``SyncPeerError/unsupported(_:)`` where the peer has none.
    func setReadOnly(_ readOnly: Bool) throws
}

/// Why a peer could not do what it was asked.
public enum SyncPeerError: Error, Equatable, CustomStringConvertible {
    /// The peer refused a message (its answer).
    case refused(String)
    /// The peer does not implement this command.
    case unsupported(String)
    /// The peer answered out of protocol, or its process ended.
    case protocolViolation(String)

    public var description: String {
        switch self {
        case .refused(let why): return "refused: \(why)"
        case .unsupported(let what): return "unsupported: \(what)"
        case .protocolViolation(let what): return "protocol violation: \(what)"
        }
    }
}

/// A peer in this process: a `Document` and a `SyncState`.
public final class LocalSyncPeer: SyncPeer {
    public let name: String
    public private(set) var document: Document
    public private(set) var state: SyncState

    /// A peer holding `document` with a fresh sync state.
    public init(name: String = "ours", document: Document = Document(), state: SyncState = SyncState()) {
        self.name = name
        self.document = document
        self.state = state
    }

    /// A peer holding the document saved in `bytes` (empty bytes: an empty document).
    public convenience init(name: String = "ours", bytes: Data) throws {
        self.init(name: name, document: bytes.isEmpty ? Document() : try Document(bytes))
    }

    public func generate() -> [UInt8]? { document.generateSyncMessage(state: state).map { [UInt8]($0) } }

    public func receive(_ message: [UInt8]) throws {
        do { try document.receiveSyncMessage(state: state, message: Data(message)) } catch {
            throw SyncPeerError.refused("\(error)")
        }
    }

    public func heads() -> [ChangeHash] { document.heads().sorted() }
    public func save() -> Data { document.save() }

    public func put(key: String, value: String) throws {
        try document.put(obj: .ROOT, key: key, value: .String(value))
        document.commitReproducibly()
    }

    public func splice(key: String, position: Int, delete: Int, text: String) throws {
        let existing = try document.get(obj: .ROOT, key: key)
        let textId: ObjId
        if case .Object(let id, .Text)? = existing {
            textId = id
        } else {
            textId = try document.putObject(obj: .ROOT, key: key, ty: .Text)
        }
        try document.spliceText(obj: textId, start: UInt64(max(0, position)), delete: Int64(delete), value: text)
        document.commitReproducibly()
    }

    public func resetState() {
        state = SyncState()
    }

    public func encodeState() -> [UInt8] { [UInt8](state.encode()) }

    public func decodeState(_ bytes: [UInt8]) throws {
        state = try SyncState(bytes: Data(bytes))
    }

    public func setReadOnly(_ readOnly: Bool) { state.isReadOnly = readOnly }

    /// Replaces the document (a peer that restarted from older bytes, or lost everything).
    public func replaceDocument(_ document: Document) { self.document = document }
}

import Automerge
import NIOConcurrencyHelpers

/// What a ``RepoClient`` keeps for one document: the handle, the sync
/// session with the server, and what it last told the handle's subscribers.
final class ClientDocument {
    /// Whether the server has the document, as far as the client knows.
    enum Availability {
        /// Asked for and not answered yet.
        case requested
        /// Here: created here, loaded from storage, or sent by the server.
        case available
        /// The server answered `doc-unavailable`.
        case unavailable
    }

    let handle: RepoDocumentHandle
    var availability: Availability
    /// The session with the connected server; a new one (from the saved
    /// shared heads) on each connection.
    var syncState = SyncState()
    /// The heads the subscribers were last told of.
    var announcedHeads: Set<ChangeHash>
    /// Set by the document's change observer until the client has looked at the edit.
    let localEditPending = NIOLockedValueBox(false)
    var observerToken: UInt64?

    init(handle: RepoDocumentHandle, availability: Availability) {
        self.handle = handle
        self.availability = availability
        announcedHeads = handle.document.heads()
    }

    var id: DocumentId { handle.id }
    var document: Document { handle.document }
}

import Automerge

/// A document of the automerge-repo network, as ``RepoClient/create(_:)``
/// and `find` return it: edit ``document`` with the
/// `Document` API and the edits reach the server; changes other peers make
/// arrive in it, while the client is connected (and on reconnection).
public final class RepoDocumentHandle: Sendable {
    /// The document's id on the network.
    public let id: DocumentId
    /// The live document; safe to edit from any thread.
    public let document: Document
    let changeEvents = Broadcast<RepoDocumentChange>()
    let ephemeralEvents = Broadcast<RepoEphemeralMessage>()
    private let client: RepoClient

    init(id: DocumentId, document: Document, client: RepoClient) {
        self.id = id
        self.document = document
        self.client = client
    }

    /// The document's `automerge:` URL, to share with other peers.
    public var url: AutomergeURL { AutomergeURL(documentId: id) }

    /// A stream of the document's changes from now on: each time an edit
    /// here or a sync message from the server moved its heads.
    public func changes() -> AsyncStream<RepoDocumentChange> { changeEvents.subscribe() }

    /// A stream of the ephemeral messages (presence, cursors) other peers
    /// send about this document from now on.
    public func ephemeralMessages() -> AsyncStream<RepoEphemeralMessage> { ephemeralEvents.subscribe() }

    /// Sends `data` (CBOR, by automerge-repo's convention) to the other
    /// peers of this document through the server; never stored. Dropped when not connected.
    public func broadcast(_ data: [UInt8]) async {
        await client.sendEphemeral(data, about: id)
    }

    /// Waits until the server has said it holds every change of this
    /// document (as Automerge's `hasOurChanges` tells): what is edited
    /// meanwhile must reach it too.
    /// - Throws: ``RepoError/timedOut`` after `timeout`, ``RepoError/closed``.
    public func waitUntilSynced(timeout: Duration = .seconds(30)) async throws {
        try await client.waitUntilServerHasChanges(of: id, timeout: timeout)
    }
}

/// A change to a ``RepoDocumentHandle``'s document.
public struct RepoDocumentChange: Sendable, Hashable {
    /// Where the change came from.
    public enum Origin: Sendable, Hashable {
        /// An edit made through this process's `Document`.
        case local
        /// A sync message from the server.
        case remote
    }

    /// The document's heads after the change.
    public var heads: Set<ChangeHash>
    /// Where it came from.
    public var origin: Origin
}

/// An ephemeral message about a document, from another peer.
public struct RepoEphemeralMessage: Sendable, Hashable {
    /// The peer that sent it.
    public var senderId: PeerId
    /// The sender's session and its count in it.
    public var sessionId: String
    public var count: UInt64
    /// The application's bytes.
    public var data: [UInt8]
}

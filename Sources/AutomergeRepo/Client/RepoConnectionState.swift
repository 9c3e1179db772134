/// Where a ``RepoClient``'s connection to its server stands.
public enum RepoConnectionState: Hashable, Sendable {
    /// Opening the WebSocket or waiting for the server's `peer`.
    case connecting
    /// The handshake is done; documents sync with `server`.
    case connected(server: PeerId)
    /// The connection dropped or failed (`reason`); the client will try
    /// again after a back-off delay.
    case disconnected(reason: String)
    /// ``RepoClient/close()`` was called; the client connects no more.
    case closed
}

/// Why a ``RepoClient`` call failed.
public enum RepoError: Error, Equatable, Sendable {
    /// The server (and every peer behind it) does not have the document.
    case documentUnavailable(DocumentId)
    /// The call's time limit passed first.
    case timedOut
    /// The client was closed.
    case closed
    /// A document or sync state could not be stored or read (`reason` says why).
    case storage(String)
}

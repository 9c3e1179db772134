// The protocol's types (DocumentId, AutomergeURL, PeerId, RepoMessage, ...) are part of this module's API.
@_exported import AutomergeRepoProtocol

/// How many changes a peer may send ahead of a document's history (whose
/// dependencies the document does not have) before it is refused. Such
/// changes are held beside the session, for the peer, never in the stored
/// document nor in the copy other peers read: a peer that adds nothing to
/// a document's history cannot grow what is stored of it, and what it
/// sent is dropped with its session.
public struct HeldChangeLimits: Sendable, Equatable {
    /// The most changes held for one document.
    public var changesPerDocument: Int
    /// The most bytes of changes held for one document.
    public var bytesPerDocument: Int
    /// The most bytes of changes held for all the session's documents.
    public var bytesInAll: Int

    /// Limits of `changesPerDocument` changes and `bytesPerDocument` bytes
    /// a document (10,000 and 8 MiB unless given), `bytesInAll` in all (32 MiB).
    public init(changesPerDocument: Int = 10_000, bytesPerDocument: Int = 8 << 20, bytesInAll: Int = 32 << 20) {
        self.changesPerDocument = changesPerDocument
        self.bytesPerDocument = bytesPerDocument
        self.bytesInAll = bytesInAll
    }
}

/// The changes a session holds for its peer, by document, until their
/// dependencies arrive (see ``HeldChangeLimits``).
struct HeldChanges {
    let limits: HeldChangeLimits
    private var byDocument: [ExactString: [[UInt8]]] = [:]
    private(set) var bytesInAll = 0

    init(limits: HeldChangeLimits) {
        self.limits = limits
    }

    /// Takes out the changes held for `docId`.
    mutating func take(_ docId: String) -> [[UInt8]] {
        guard let chunks = byDocument.removeValue(forKey: ExactString(docId)) else { return [] }
        bytesInAll -= chunks.reduce(0) { $0 + $1.count }
        return chunks
    }

    /// Holds `chunks` for `docId` (in place of what was held, taken before).
    /// - Throws: ``ReplicationError/protocolViolation(_:)`` past a limit, holding nothing for `docId`.
    mutating func hold(_ chunks: [[UInt8]], for docId: String) throws {
        guard !chunks.isEmpty else { return }
        let bytes = chunks.reduce(0) { $0 + $1.count }
        let problem: String? =
            if chunks.count > limits.changesPerDocument { "\(chunks.count) changes, more than \(limits.changesPerDocument)" }
            else if bytes > limits.bytesPerDocument { "\(bytes) bytes of changes, more than \(limits.bytesPerDocument)" }
            else if bytesInAll + bytes > limits.bytesInAll { "\(bytesInAll + bytes) bytes of changes in all, more than \(limits.bytesInAll)" }
            else { nil }
        if let problem {
            throw ReplicationError.protocolViolation(
                "document '\(docId)': the peer sent \(problem), whose dependencies the document does not have")
        }
        byDocument[ExactString(docId)] = chunks
        bytesInAll += bytes
    }
}

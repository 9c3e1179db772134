/// The changes of a sync message, decoded before the document's lock is
/// taken: decompressing, hashing and parsing the columns of a large message
/// is most of the work of receiving it, and readers and writers of the
/// document should not wait for it (as they do not for
/// `applyEncodedChanges` or `merge`).
///
/// Which form the changes take depends on the document: a saved document
/// arriving at a document with no history loads directly (Rust's
/// `load_incremental` shortcut). That is decided from a look at the
/// document under a brief lock; if the document changed before the lock is
/// taken again to apply, the message is decoded as changes under that lock
/// instead, so a race costs time, never correctness.
enum ReceivedSyncChanges {
    /// The message carries no changes, or this side ignores them (read-only).
    case none
    /// The message's chunks as changes.
    case changes([DecodedChange])
    /// A whole saved document, loaded, for a document that had no history;
    /// `bytes` are the message's chunks, should it have gained one since.
    case document(DocumentState, bytes: [UInt8])

    /// Decodes `message`'s changes for `document`, taking its lock only to
    /// look at its state. Throws what decoding refuses.
    static func decode(
        _ message: SyncMessage, for document: Document, readOnly: Bool
    ) throws(AutomergeError) -> ReceivedSyncChanges {
        guard !message.changes.isEmpty, !readOnly else { return .none }
        let bytes = concatenated(message.changes)
        if StorageFile.startsWithDocumentChunk(bytes) {
            let target = document.locked { state in
                (empty: state.acceptsWholeDocument, actor: state.actor, encoding: state.encoding)
            }
            if target.empty {
                return .document(try DocumentState.load(bytes, actor: target.actor, encoding: target.encoding), bytes: bytes)
            }
        }
        return .changes(try StorageBridge.changes(in: bytes))
    }

    /// The chunks end to end (the one chunk itself, without a copy).
    static func concatenated(_ chunks: [[UInt8]]) -> [UInt8] {
        chunks.count == 1 ? chunks[0] : chunks.reduce(into: [UInt8]()) { $0.append(contentsOf: $1) }
    }
}

extension DocumentState {
    /// Whether a saved document received by sync may replace this state
    /// whole: no history, nothing queued, no open transaction.
    var acceptsWholeDocument: Bool {
        history.count == 0 && queue.isEmpty && (transaction?.ops.isEmpty ?? true)
    }

    /// Applies decoded sync changes, committing `pending` first.
    mutating func applySyncChanges(
        _ received: ReceivedSyncChanges, bytes chunks: [[UInt8]], committing pending: PendingChange?
    ) throws(AutomergeError) {
        switch received {
        case .document(var loaded, let bytes):
            guard acceptsWholeDocument else {
                try apply(try StorageBridge.changes(in: bytes), committing: pending)
                return
            }
            loaded.actor = actor
            loaded.refusesMisorderedMarks = refusesMisorderedMarks
            loaded.lastEncodedHeads = lastEncodedHeads
            self = loaded
        case .changes(let changes):
            try apply(changes, committing: pending)
        case .none:
            // Read-only when decoded, not any more: decode here, under the lock.
            try apply(try StorageBridge.changes(in: ReceivedSyncChanges.concatenated(chunks)), committing: pending)
        }
    }
}

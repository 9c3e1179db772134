/// The op rows of a large document chunk, handed from the thread that
/// decodes them to a thread that builds the op set from them while the
/// decode goes on.
///
/// Unfed, a load decodes every row (a third of moby-dick's load, on one
/// core) before it rebuilds the changes on one core and builds the op set
/// on the other, the longer of the two. Fed rows, the build starts with
/// the first block of rows and runs beside the decode, then beside the
/// rebuild.
///
/// The decoder appends rows and group ids in place in storage reserved for
/// all of them (``FollowableBuffer``), and every ``publishInterval`` rows
/// tells the builder how far it may read, with the map keys and mark names
/// interned since. It feeds rows only when that is safe (see
/// ``OpColumns/decode(_:kind:actorCount:canonical:rowLimit:feeding:)``); else it
/// hands over the finished document alone, and the build runs beside the
/// rebuild only. The decoder never waits for the builder, so a builder
/// that runs after it on the same thread (no free core) finds every row
/// there.
final class OpRowFeed: @unchecked Sendable {
    /// Rows between two publications: a lock and a wake-up per 16,384 rows
    /// cost nothing next to decoding them, and the builder starts early.
    static let publishInterval = 16_384

    /// What the builder learns from ``next(after:)``.
    enum Event {
        /// Every row decoded so far (more than the builder has read), with
        /// their group ids and the strings interned since the last event.
        case rows(Window)
        /// Every op row is decoded (the change rows may not be yet): the
        /// rest of the rows are in these. The builder takes the document's
        /// changes later, from ``decodedDocument()``.
        case opsDecoded(actors: [ActorId], ops: StoredOpRows)
        /// The decode finished: the rest of the rows are in the document.
        case finished(StoredDocument)
        /// The decode failed with this error (the load's).
        case failed(LoadError)
    }

    /// The rows the builder may read, and what they point into.
    struct Window {
        var actors: [ActorId]
        var rows: UnsafeBufferPointer<StoredOpRows.Row>
        var groupIds: UnsafeBufferPointer<StoredOpId>
        var newStrings: [String]
        var valueBytes: ArraySlice<UInt8>
    }

    private struct Streaming {
        let actors: [ActorId]
        let rows: FollowableBuffer<StoredOpRows.Row>.Follower
        let groupIds: FollowableBuffer<StoredOpId>.Follower
        let valueBytes: ArraySlice<UInt8>
        var rowCount = 0
        var groupCount = 0
        /// Strings interned since the builder's last event.
        var newStrings: [String] = []
    }

    private let lock = Lock()
    /// Signalled when rows are published and when the decode ends.
    private let changed = Condition()
    private var streaming: Streaming?
    private var decodedOps: (actors: [ActorId], ops: StoredOpRows)?
    private var outcome: Result<StoredDocument, LoadError>?

    /// A feed of a decoded document, for a build that starts after the decode.
    static func finished(_ document: StoredDocument) -> OpRowFeed {
        let feed = OpRowFeed()
        feed.finish(.success(document))
        return feed
    }

    // MARK: Decoder side

    /// Starts feeding rows appended to the followed buffers.
    func begin(actors: [ActorId], rows: FollowableBuffer<StoredOpRows.Row>.Follower,
               groupIds: FollowableBuffer<StoredOpId>.Follower, valueBytes: ArraySlice<UInt8>) {
        lock.withLock {
            precondition(streaming == nil && outcome == nil, "a feed begins once, before it ends")
            streaming = Streaming(actors: actors, rows: rows, groupIds: groupIds, valueBytes: valueBytes)
        }
    }

    /// The first `rowCount` rows, and their `groupCount` group ids, are
    /// appended; `newStrings` were interned since the last publication.
    func publish(rowCount: Int, groupCount: Int, newStrings: ArraySlice<String>) {
        lock.withLock {
            precondition(streaming != nil, "rows published before the feed began")
            streaming!.rowCount = rowCount
            streaming!.groupCount = groupCount
            streaming!.newStrings.append(contentsOf: newStrings)
            changed.signal()
        }
    }

    /// Every op row is decoded, while the change rows may still be: the
    /// builder need not wait for them to build the op set (a long history's
    /// change columns take longer to decode than its op columns).
    func finishOps(actors: [ActorId], ops: StoredOpRows) {
        lock.withLock {
            decodedOps = (actors, ops)
            changed.signal()
        }
    }

    /// The decode ended: with the document, or with an error.
    func finish(_ outcome: Result<StoredDocument, LoadError>) {
        lock.withLock {
            self.outcome = outcome
            decodedOps = nil
            changed.signal()
        }
    }

    // MARK: Builder side

    /// Waits until there are rows past the first `consumed`, or the decode has ended.
    func next(after consumed: Int) -> Event {
        lock.lock()
        defer { lock.unlock() }
        while true {
            switch outcome {
            case .success(let document)?: return .finished(document)
            case .failure(let error)?: return .failed(error)
            case nil: break
            }
            if let fed = streaming, fed.rowCount > consumed {
                streaming!.newStrings = []
                return .rows(Window(actors: fed.actors, rows: fed.rows.prefix(fed.rowCount),
                                    groupIds: fed.groupIds.prefix(fed.groupCount), newStrings: fed.newStrings,
                                    valueBytes: fed.valueBytes))
            }
            if let (actors, ops) = decodedOps {
                decodedOps = nil
                return .opsDecoded(actors: actors, ops: ops)
            }
            changed.wait(holding: lock)
        }
    }

    /// Waits for the decode to end, after ``Event/opsDecoded(actors:ops:)``.
    func decodedDocument() throws(LoadError) -> StoredDocument {
        lock.lock()
        defer { lock.unlock() }
        while true {
            switch outcome {
            case .success(let document)?: return document
            case .failure(let error)?: throw error
            case nil: changed.wait(holding: lock)
            }
        }
    }
}

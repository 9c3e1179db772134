#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Document {
    /// Commits pending edits as one change with an optional message and a
    /// time, now unless given (as in automerge-swift). The time is stored
    /// in milliseconds since the epoch, the binary format's unit
    /// (automerge-swift stores seconds). Changes committed implicitly (by
    /// `save()`, `heads()`, a merge, ...) have time 0, as in Rust.
    public func commitWith(message: String? = nil, timestamp: Date = Date()) {
        changing { state in
            state.commit(message: message, time: Primitive.milliseconds(of: timestamp))
        }
    }

    /// Commits pending edits with the time exactly as the format stores it
    /// (an integer, milliseconds by convention), which a `Date` cannot
    /// carry for every value: conformance scripts stamp any 64-bit time.
    @_spi(Conformance)
    public func commit(message: String?, storedTime time: Int64) {
        changing { state in state.commit(message: message, time: time) }
    }

    /// Commits pending edits, then a change with no ops, as Rust's
    /// `empty_change` does: a new document gets a history (a head to sync)
    /// before it has content, as automerge-repo's `create()` gives one.
    public func emptyChange(message: String? = nil, timestamp: Date = Date()) {
        changing { state in
            state.commitEmptyChange(message: message, time: Primitive.milliseconds(of: timestamp))
        }
    }

    /// The hashes of the changes nothing else depends on yet.
    public func heads() -> Set<ChangeHash> {
        locked { state in
            state.commit()
            return state.history.heads
        }
    }

    /// Every change hash in the order the document applied them.
    public func getHistory() -> [ChangeHash] {
        locked { state in
            state.commit()
            return state.history.records.map(\.hash)
        }
    }

    /// How many changes the document holds (pending edits committed
    /// first): a datastore's revision generation, the same on every replica
    /// holding the same changes.
    @_spi(Storage)
    public var changeCount: Int {
        locked { state in
            state.commit()
            return state.history.count
        }
    }

    /// How many ops the document's changes hold (deletes included): the
    /// denominator of per-op figures such as `automerge-bench memory`'s.
    @_spi(Conformance)
    public var opCountOfChanges: Int {
        locked { state in
            state.commit()
            return state.history.opCount
        }
    }

    /// The change with `hash`, or nil if the document does not have it.
    public func change(hash: ChangeHash) -> Change? {
        locked { state in
            state.commit()
            guard let record = state.history.record(hash) else { return nil }
            return state.publicChange(record)
        }
    }

    /// An independent copy with a new random actor.
    public func fork() -> Document {
        locked { state in
            state.commit()
            var copy = state
            copy.actor = ActorId()
            return Document(state: copy, logLevel: logLevel)
        }
    }

    /// A copy of the document as it was at `heads`, with a new random actor.
    public func forkAt(heads: Set<ChangeHash>) throws -> Document {
        try locked { state throws(AutomergeError) in
            state.commit()
            let missing = state.history.missing(heads)
            guard missing.isEmpty else { throw .unknownHeads(missing) }
            let included = state.history.ancestors(of: heads)
            var copy = DocumentState(actor: ActorId(), encoding: state.encoding)
            for (index, record) in state.history.records.enumerated() where included[index] {
                try copy.applyInOrder(try DocumentState.decodeRecord(state.history.bytes(of: record)))
            }
            return Document(state: copy, logLevel: logLevel)
        }
    }

    /// Applies every change of `other` this document lacks. All or nothing:
    /// if any change is refused, the document stays as it was.
    public func merge(other: Document) throws {
        let changes = try changesToMerge(from: other)
        try changing { state throws(AutomergeError) in _ = try state.apply(changes) }
    }

    /// Merges `other` and returns what changed, as patches: from the state
    /// before the merge (pending edits committed) to the state after it,
    /// both taken under the same lock as the merge, so that an edit from
    /// another thread cannot fall between them.
    public func mergeWithPatches(other: Document) throws -> [Patch] {
        let changes = try changesToMerge(from: other)
        return try changing { state throws(AutomergeError) in try state.applyWithPatches(changes) }
    }

    /// The changes of `other` this document lacks, decoded outside this
    /// document's lock (`apply` skips any that arrive meanwhile). `other`'s
    /// pending edits are committed; this document's are not yet, since a
    /// refused merge must leave them pending.
    private func changesToMerge(from other: Document) throws(AutomergeError) -> [DecodedChange] {
        if other === self { return [] }
        let known = locked { $0.history }
        let changeBytes = other.locked { otherState in
            otherState.commit()
            return otherState.history.records.filter { !known.contains($0.hash) }.map { otherState.history.bytes(of: $0) }
        }
        var changes: [DecodedChange] = []
        for bytes in changeBytes { changes.append(try DocumentState.decodeRecord(bytes)) }
        return changes
    }

    /// The document in the binary format, columns of 256 bytes or more deflated.
    public func save() -> Data {
        save(compress: true)
    }

    /// The document in the binary format; `compress: false` deflates nothing
    /// (the deterministic form that conformance tests compare byte for byte).
    public func save(compress: Bool) -> Data {
        locked { state in
            state.commit()
            state.lastEncodedHeads = state.history.heads
            return Data(state.save(compress: compress))
        }
    }

    /// Loads a document from bytes: a saved document, change chunks, or any concatenation.
    /// - Parameters:
    ///   - bytes: The encoded document or changes.
    ///   - logLevel: How much the Codable layer reports about this document.
    public convenience init(_ bytes: Data, logLevel: LogVerbosity = .errorOnly) throws {
        try self.init(bytes, textEncoding: .unicodeScalar, logLevel: logLevel)
    }

    /// Loads a document from bytes, counting text positions in `textEncoding`.
    public convenience init(_ bytes: Data, textEncoding: TextEncoding, logLevel: LogVerbosity = .errorOnly) throws {
        let state = try DocumentState.load([UInt8](bytes), actor: ActorId(), encoding: textEncoding)
        self.init(state: state, logLevel: logLevel)
    }

    /// Loads bytes that this package wrote and kept (a datastore's snapshot
    /// and change chunks), as ``init(_:logLevel:)`` does, less one check:
    /// change chunks are not re-encoded to prove them canonical. Every
    /// change this package keeps was encoded by it or passed that check when
    /// it entered a document; bytes damaged since fail their checksums or
    /// the other checks, as any input does, and a crafted non-canonical
    /// change can at worst make a later save fail to load with a typed error.
    /// `actor` is the actor the document writes as, so that none is drawn
    /// at random first.
    @_spi(Storage)
    public convenience init(ownBytes bytes: Data, actor: ActorId) throws {
        let state = try DocumentState.load([UInt8](bytes), actor: actor, encoding: .unicodeScalar, ownBytes: true)
        self.init(state: state)
    }

    /// The changes made since the last `save()` or `encodeNewChanges()`, as change chunks.
    public func encodeNewChanges() -> Data {
        locked { state in
            state.commit()
            let bytes = state.history.concatenatedBytes(of: state.history.indices(notReachableFrom: state.lastEncodedHeads))
            state.lastEncodedHeads = state.history.heads
            return Data(bytes)
        }
    }

    /// The changes not reachable from `heads`, as change chunks.
    public func encodeChangesSince(heads: Set<ChangeHash>) throws -> Data {
        try locked { state throws(AutomergeError) in
            state.commit()
            let missing = state.history.missing(heads)
            guard missing.isEmpty else { throw .unknownHeads(missing) }
            return Data(state.history.concatenatedBytes(of: state.history.indices(notReachableFrom: heads)))
        }
    }

    /// Whether the changes not reachable from `heads` form one line: each
    /// has at most one dependency, and the document has one head. Only where
    /// history forked can a key have concurrent values, so a document that
    /// had none at `heads` has none now when this holds.
    /// - Throws: ``AutomergeError`` for heads the document does not have.
    @_spi(Storage)
    public func isLinear(since heads: Set<ChangeHash>) throws -> Bool {
        try locked { state throws(AutomergeError) in
            state.commit()
            let missing = state.history.missing(heads)
            guard missing.isEmpty else { throw .unknownHeads(missing) }
            let history = state.history
            guard history.heads.count <= 1 else { return false }
            return history.indices(notReachableFrom: heads).allSatisfy {
                history.records[$0].dependencyCount <= 1
            }
        }
    }

    /// Applies change chunks (or a saved document) received from another
    /// peer. All or nothing: if the bytes do not decode or any change is
    /// refused, the document stays as it was.
    public func applyEncodedChanges(encoded: Data) throws {
        let changes = try StorageBridge.changes(in: [UInt8](encoded))
        let count = changes.count
        try changing { state throws(AutomergeError) in _ = try state.apply(changes) }
        BackgroundRelease.release(consume changes, count: count)
    }

    /// Applies encoded changes and returns what changed, as patches, taken
    /// under the same lock as the changes (see ``mergeWithPatches(other:)``).
    public func applyEncodedChangesWithPatches(encoded: Data) throws -> [Patch] {
        let changes = try StorageBridge.changes(in: [UInt8](encoded))
        let count = changes.count
        let patches = try changing { state throws(AutomergeError) in try state.applyWithPatches(changes) }
        BackgroundRelease.release(consume changes, count: count)
        return patches
    }
}

extension DocumentState {
    /// Applies `changes` as ``apply(_:)`` does and returns the patches from
    /// the state before (pending edits committed) to the state after.
    mutating func applyWithPatches(_ changes: [DecodedChange]) throws(AutomergeError) -> [Patch] {
        let pending = pendingChange()
        let before = heads(committing: pending)
        try apply(changes, committing: pending)
        return try patches(since: before)
    }

    func publicChange(_ record: ChangeRecord) -> Change {
        Change(actorId: ops.actors[record.actor], seq: record.sequence, message: history.message(of: record),
               deps: history.dependencies(of: record),
               timestamp: Date(timeIntervalSince1970: Double(record.time) / 1000),
               bytes: Data(ChangeCodec.publicBytes(Array(history.bytes(of: record)), hash: record.hash)), hash: record.hash)
    }

    /// Applies changes in exactly the given order (a document's own rows).
    mutating func applyInOrder(_ change: DecodedChange) throws(AutomergeError) {
        guard try apply([change]) == 1 else { throw .invalidChange("change \(change.hash) is missing dependencies") }
    }
}

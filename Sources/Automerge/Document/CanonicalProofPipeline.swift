/// Proves received changes canonical (``CanonicalChangeForm``) on another
/// core while the calling thread checks the changes after them.
///
/// Checking a batch is serial (each change is checked against the ones
/// before it), and re-encoding each change to prove it canonical was a
/// third as much work again; proven in two halves once every change was
/// checked, the calling thread still did half of it. Here the calling
/// thread hands over what it has checked a batch at a time, and the other
/// thread proves it in order, so the proofs cost the calling thread only
/// the wait for the last batch. The first change that fails is the one
/// proving in order finds: every change checked is handed over before the
/// calling thread asks, and the proofs stop at the first failure.
final class CanonicalProofPipeline: @unchecked Sendable {  // every mutable field is read and written under `lock`
    /// Changes handed over at once: a lock and a wake-up per batch.
    static let batchSize = 32

    private struct Batch {
        /// The position in the checked changes of the batch's first.
        let start: Int
        let changes: [CheckedChange]
        /// The actors the checker's table gained since the batch before,
        /// in their order there (interning only appends). Only these are
        /// handed over: a copy of the whole table per batch cost a file of
        /// one change per new actor quadratic time and memory.
        let newActors: [ActorId]
    }

    /// Runs `check`, which hands checked changes over to the pipeline and
    /// then finishes it, on the calling thread while the proofs of
    /// `changes` run on another; returns the position of the first change
    /// handed over that is not canonical. (The proofs wait for the checks,
    /// which `Concurrently.run` allows.)
    static func firstFailure(checking check: (CanonicalProofPipeline) -> Void, of changes: [DecodedChange]) -> Int? {
        let proofs = CanonicalProofPipeline()
        _ = Concurrently.run({ check(proofs) }, { proofs.prove(changes) })
        return proofs.firstFailure
    }

    private let lock = Lock()
    private let handedOver = Condition()
    private var batches: [Batch] = []
    private var nextBatch = 0
    private var finished = false
    private var failure: Int?

    private init() {}

    /// Hands over `changes`, checked with an actor table that gained
    /// `newActors` since the last hand-over, the first at position `start`;
    /// returns false once a change handed over earlier has failed, so that
    /// checking can stop.
    func handOver(_ changes: [CheckedChange], start: Int, newActors: [ActorId]) -> Bool {
        lock.withLock {
            batches.append(Batch(start: start, changes: changes, newActors: newActors))
            handedOver.signal()
            return failure == nil
        }
    }

    /// Nothing more will be handed over.
    func finish() {
        lock.withLock {
            finished = true
            handedOver.signal()
        }
    }

    /// The position of the first change handed over that is not canonical;
    /// to be read once ``prove(_:)`` has returned.
    private var firstFailure: Int? { lock.withLock { failure } }

    /// Proves what is handed over, in order, until ``finish()`` and the
    /// last batch or the first failure; `changes` holds the changes the
    /// checked ones name by position.
    private func prove(_ changes: [DecodedChange]) {
        var form = CanonicalChangeForm()
        var actors = ActorTable()
        while let batch = next() {
            // Bytes of its own: two cores retaining the same buffers take turns at their counts.
            _ = actors.intern(contentsOf: batch.newActors.map { ActorId(uncheckedBytes: Array($0.bytes)) })
            if let offset = ChangeChecker.firstNonCanonical(in: batch.changes[...], of: changes, actors: actors, form: &form) {
                lock.withLock { failure = batch.start + offset }
                return
            }
        }
    }

    /// The next batch handed over, waiting for it; nil once finished and all are taken.
    private func next() -> Batch? {
        lock.lock()
        defer { lock.unlock() }
        while nextBatch == batches.count && !finished { handedOver.wait(holding: lock) }
        guard nextBatch < batches.count else { return nil }
        nextBatch += 1
        // Taken, the batch is released by its taker rather than kept with the pipeline.
        let batch = batches[nextBatch - 1]
        batches[nextBatch - 1] = Batch(start: batch.start, changes: [], newActors: [])
        return batch
    }
}

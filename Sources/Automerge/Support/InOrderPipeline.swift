/// Work in numbered chunks, computed on this thread and one other and
/// consumed on this thread in chunk order, each as soon as it and those
/// before it are computed.
///
/// For work whose last step is serial (rebuilding a long history hashes
/// each change after the changes it depends on): the other thread computes
/// chunks while this one consumes the earlier ones, and this one computes
/// the next untaken chunk whenever the one it needs is still being
/// computed, so neither core waits while there is work. Split in two
/// halves instead, the second half's serial step ran on one core alone.
enum InOrderPipeline {
    /// Calls `consume(chunk, compute(chunk))` for every chunk in
    /// `0..<chunkCount`, in order, on the calling thread; `compute` runs on
    /// the calling thread and on one other, so it may only read what it
    /// shares. At most the outputs computed ahead of the consumer are held.
    static func run<Output>(chunkCount: Int, compute: (Int) -> Output, consume: (Int, Output) -> Void) {
        let state = State<Output>(chunkCount: chunkCount)
        _ = Concurrently.runOnNewThread({
            for chunk in 0..<chunkCount {
                consume(chunk, state.output(of: chunk, computingMeanwhile: compute))
            }
        }, {
            while let chunk = state.take() { state.deliver(compute(chunk), of: chunk) }
        })
    }

    /// Which chunks are taken and the outputs not yet consumed.
    private final class State<Output>: @unchecked Sendable {  // every field is read and written under `lock`
        private let lock = Lock()
        private let delivered = Condition()
        private var nextUntaken = 0
        private var outputs: [Output?]

        init(chunkCount: Int) {
            outputs = Array(repeating: nil, count: chunkCount)
        }

        /// The next chunk nobody has taken, now taken by the caller.
        func take() -> Int? {
            lock.withLock { takeHoldingLock() }
        }

        private func takeHoldingLock() -> Int? {
            guard nextUntaken < outputs.count else { return nil }
            nextUntaken += 1
            return nextUntaken - 1
        }

        func deliver(_ output: Output, of chunk: Int) {
            lock.withLock {
                outputs[chunk] = output
                delivered.signal()
            }
        }

        /// The output of `chunk`, computing untaken chunks while it is not ready.
        func output(of chunk: Int, computingMeanwhile compute: (Int) -> Output) -> Output {
            lock.lock()
            defer { lock.unlock() }
            while true {
                if let output = outputs[chunk].take() { return output }
                if let mine = takeHoldingLock() {
                    lock.unlock()
                    let output = compute(mine)
                    lock.lock()
                    outputs[mine] = output
                } else {
                    delivered.wait(holding: lock)
                }
            }
        }
    }
}

import Dispatch

/// Lets go of a large value on a Dispatch worker, so that a call does not
/// wait for its result's work arrays to be freed before it returns.
///
/// Freeing the 10,000 decoded changes of a batch (each a few heap blocks)
/// took a twentieth of applying them. A freed block goes back to the
/// allocator arena it came from whichever thread frees it. Not for loads:
/// a load hands its freed heap back to the system at its end
/// (``FreedMemory``), which must come after the freeing.
enum BackgroundRelease {
    /// Below this many elements a value is freed where it is: a hand-off
    /// costs more than freeing a few.
    static let threshold = 1_000

    /// Releases `value`, which holds `count` elements, on a worker if
    /// `count` reaches ``threshold`` and the ``ExecutionPolicy`` allows, else here. The caller must hold no
    /// other reference to it, or the worker frees nothing.
    static func release<Value: Sendable>(_ value: consuming Value, count: Int) {
        guard count >= threshold, ExecutionPolicy.current.releasesInBackground else { return }
        let box = Box(value)
        DispatchQueue.global(qos: .utility).async { box.drop() }
    }

    /// Holds the value until the worker drops it.
    private final class Box<Value: Sendable>: @unchecked Sendable {  // `value` is touched by the worker alone
        private var value: Value?
        init(_ value: consuming Value) { self.value = value }
        func drop() { value = nil }
    }
}

import Dispatch
import NIOPosix
#if canImport(Glibc)
import CThreadScheduling
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A started pool of `threads` threads, each at `niceness` (Linux nice,
/// 0 to 19; on Apple platforms the utility quality of service): the host's
/// choice, for `automerge serve`, of where bulk document work runs, so the
/// scheduler gives small edits the cores first whenever both are waiting.
func lowPriorityThreadPool(threads: Int, niceness: Int32) -> NIOThreadPool {
    let pool = NIOThreadPool(numberOfThreads: threads)
    pool.start()
    // One job per thread: each waits until all have started, so every
    // thread runs exactly one of them and lowers its own priority.
    let started = DispatchGroup(), finished = DispatchGroup(), release = DispatchSemaphore(value: 0)
    for _ in 0..<threads {
        started.enter()
        finished.enter()
        pool.submit { _ in
            lowerThisThreadsPriority(to: niceness)
            started.leave()
            release.wait()
            finished.leave()
        }
    }
    started.wait()
    for _ in 0..<threads { release.signal() }
    finished.wait()
    return pool
}

/// The time slice asked for a bulk thread: long, so that on Linux 6.12 and
/// later (EEVDF's PREEMPT_SHORT) any thread with the default slice (0.75 ms
/// times 1 + log2 of the cores) that wakes takes the core from it at once.
/// Without it, the bulk thread keeps a core it started a slice on until the
/// next timer tick (4 ms at 250 Hz), nice or not, while a woken event loop waits.
let bulkThreadSlice: UInt64 = 50_000_000

private func lowerThisThreadsPriority(to niceness: Int32) {
    #if os(Linux)
    guard automerge_set_thread_nice_and_slice(niceness, bulkThreadSlice) != 0 else { return }
    // On Linux the nice value is per thread: `who` 0 is the calling thread.
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
    #elseif canImport(Darwin)
    _ = pthread_set_qos_class_self_np(QOS_CLASS_UTILITY, 0)
    #endif
}

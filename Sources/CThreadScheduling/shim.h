// A thread's CPU scheduling attributes beyond what Glibc's Swift overlay
// exposes: Linux's sched_setattr, which glibc declares no wrapper for.
#if defined(__linux__)
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/// struct sched_attr as of Linux 3.14 (SCHED_ATTR_SIZE_VER0, 48 bytes).
struct automerge_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
};

/// Puts the calling thread in the normal class (SCHED_OTHER) at `nice`,
/// asking for time slices of `slice_ns` nanoseconds (sched_runtime, read
/// by the EEVDF scheduler of Linux 6.12 and later; earlier kernels ignore
/// it). Returns 0, or -1 with errno set.
static inline int automerge_set_thread_nice_and_slice(int nice, uint64_t slice_ns) {
#ifdef SYS_sched_setattr
    struct automerge_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.sched_policy = 0;  // SCHED_OTHER
    attr.sched_nice = nice;
    attr.sched_runtime = slice_ns;
    return (int)syscall(SYS_sched_setattr, 0, &attr, 0);
#else
    return -1;
#endif
}
#endif

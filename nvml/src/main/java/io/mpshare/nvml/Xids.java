package io.mpshare.nvml;

import java.util.Set;

/**
 * Which Xid errors make a GPU unhealthy. Application errors (a kernel that faulted, a context that
 * was reset, a watchdog on one process) say nothing about the GPU: the same list NVIDIA's device
 * plugin skips. Everything else that NVML reports as {@code nvmlEventTypeXidCriticalError} is critical.
 */
public final class Xids {
    private Xids() {}

    /** 13 graphics engine exception, 31 GPU memory page fault, 43 stopped processing, 45 preemptive cleanup,
     *  68 video processor exception, 109 context switch timeout: caused by one application. */
    public static final Set<Long> APPLICATION_XIDS = Set.of(13L, 31L, 43L, 45L, 68L, 109L);

    public static boolean isCritical(long xid) {
        return !APPLICATION_XIDS.contains(xid);
    }
}

package io.mpshare.mps;

/**
 * How the MPS daemon keeps pinned-memory limits: in whole GiB. On the H200 (driver 580)
 * {@code set_default_device_pinned_mem_limit 0 2560M} reads back {@code 2G} (5632M → {@code 5G}; docs/gpu-results.md),
 * so a server ceiling must be a whole number of GiB, rounded <b>up</b>: rounded down it would cut below a booked pod's
 * own cap.
 */
public final class PinnedLimits {
    private PinnedLimits() {}

    public static final long GIB_MIB = 1024;
    /** The smallest ceiling the daemon can hold: 1 GiB (about half of it is a CUDA context). */
    public static final long SMALLEST_MIB = GIB_MIB;

    /** {@code mib} rounded up to whole GiB, at least {@link #SMALLEST_MIB}. */
    public static long roundUpToWholeGib(long mib) {
        if (mib < 0) throw new IllegalArgumentException("a limit must be >= 0 MiB, got " + mib);
        return Math.max(SMALLEST_MIB, Math.ceilDiv(mib, GIB_MIB) * GIB_MIB);
    }

    public static boolean wholeGib(long mib) { return mib > 0 && mib % GIB_MIB == 0; }
}

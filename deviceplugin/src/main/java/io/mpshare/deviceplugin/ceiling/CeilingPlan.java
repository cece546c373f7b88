package io.mpshare.deviceplugin.ceiling;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.ContainerShare;
import io.mpshare.mps.PinnedLimits;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * The server ceiling each GPU of the node should have, from the node's bookings: pure, no I/O.
 *
 * <pre>ceiling(g) = roundUpToWholeGib(max over containers c of pods booked on g of (c.memMibPerGpu + reserveMib))
 * ceiling(g) = 1 GiB when nothing is booked on g</pre>
 *
 * The per-process cap a container is answered at Allocate is {@code memMibPerGpu + reserveMib}
 * ({@code AnswerBuilder}); the ceiling is never below any of them (rounded up, since the daemon keeps whole GiB:
 * {@link PinnedLimits}), so no booked client is cut below its own cap, and a client that raises its env cap gets at
 * most the largest cap on its GPU. With nothing booked, 1 GiB (the smallest the daemon holds; a CUDA context alone takes
 * about half): a process that escapes booking gets almost nothing. GPUs named in a booking but not on this node are
 * left out.
 */
public final class CeilingPlan {
    private CeilingPlan() {}

    /** @param gpus the node's GPU indices (NVML order, which is the daemon's device ordinal: it sees every GPU) */
    public static Map<Integer, Long> desired(Collection<Allocation> booked, Collection<Integer> gpus) {
        Map<Integer, Long> largestCap = new TreeMap<>();
        for (Allocation a : booked) {
            long cap = 0;
            for (ContainerShare c : a.demand().containers()) cap = Math.max(cap, c.memMibPerGpu() + a.demand().reserveMib());
            if (a.demand().containers().isEmpty()) cap = a.demand().chargeMib();
            for (int g : a.gpuIndices()) largestCap.merge(g, cap, Math::max);
        }
        Map<Integer, Long> out = new TreeMap<>();
        for (int g : gpus) out.put(g, PinnedLimits.roundUpToWholeGib(largestCap.getOrDefault(g, 0L)));
        return out;
    }
}

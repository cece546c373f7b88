package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.ContainerShare;
import io.mpshare.core.model.PodKey;

import java.util.ArrayList;
import java.util.List;

/**
 * A pod bound to this node with a readable allocation that is not assigned yet. {@code order} is the order in which
 * kubelet admits its GPU containers (init containers first, then app containers, each in spec order) and
 * {@code units} how many {@code gpu-mem} devices each of them asks.
 */
public record Candidate(PodKey pod, String uid, Allocation allocation, List<ContainerShare> order, long[] units) {

    public static Candidate of(Allocation a, MemoryUnit unit) {
        var order = new ArrayList<ContainerShare>();
        for (ContainerShare c : a.demand().containers()) if (c.init()) order.add(c);
        for (ContainerShare c : a.demand().containers()) if (!c.init()) order.add(c);
        long[] units = new long[order.size()];
        int n = a.gpuIndices().size();
        for (int i = 0; i < units.length; i++) {
            long mib = order.get(i).memMibPerGpu() * n;
            units[i] = mib % unit.mibPerUnit() == 0 ? unit.fromMib(mib) : -1;
        }
        return new Candidate(a.pod(), a.podUid(), a, List.copyOf(order), units);
    }

    /** Index of the first container not in {@code answered} that asks {@code want} units, or -1. */
    public int firstOpen(long want, Claims answered) {
        for (int i = 0; i < units.length; i++) if (units[i] == want && !answered.has(i)) return i;
        return -1;
    }

    /** Which of a candidate's containers were answered by this process; immutable. */
    public record Claims(long mask, int size) {
        public static final Claims NONE = new Claims(0, 0);

        public boolean has(int i) { return (mask & (1L << i)) != 0; }

        public Claims with(int i, int total) { return new Claims(mask | (1L << i), total); }

        public boolean complete() { return size > 0 && Long.bitCount(mask) >= size; }

        public boolean started() { return mask != 0; }
    }
}

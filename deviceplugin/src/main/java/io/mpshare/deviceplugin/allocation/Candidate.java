package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.ContainerShare;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;

import java.util.ArrayList;
import java.util.List;

/**
 * A pod bound to this node that kubelet may be admitting now: one of its GPU containers has not been answered.
 * Either <b>placed</b> (a readable allocation for this node, not assigned) or <b>unplaced</b> (asks
 * {@code aliyun.com/gpu-mem} without a usable allocation; {@code problem} says why): an unplaced pod is never answered,
 * only refused, and is kept so that a call meant for it is refused at once instead of taking a neighbour's answer.
 *
 * <p>{@code names} and {@code units} follow the order kubelet admits containers (init containers, sidecars included,
 * in spec order, then app containers); {@code units[i]} is how many {@code gpu-mem} devices container {@code i} asks
 * (-1 when its share is not a whole number of units). {@code seq} is when this process first saw the pod bound here:
 * kubelet admits pods in the order its own watch of the node's pods delivers them, which is the order ours does.
 *
 * @param allocation null for an unplaced pod
 * @param shares     the placed pod's container shares in admission order; empty when unplaced
 */
public record Candidate(PodKey pod, String uid, long seq, Allocation allocation, String problem, List<String> names,
                        List<ContainerShare> shares, long[] units) {

    public static Candidate placed(Allocation a, MemoryUnit unit, long seq) {
        var order = new ArrayList<ContainerShare>();
        for (ContainerShare c : a.demand().containers()) if (c.init()) order.add(c);
        for (ContainerShare c : a.demand().containers()) if (!c.init()) order.add(c);
        long[] units = new long[order.size()];
        var names = new ArrayList<String>();
        int n = a.gpuIndices().size();
        for (int i = 0; i < units.length; i++) {
            long mib = order.get(i).memMibPerGpu() * n;
            units[i] = mib % unit.mibPerUnit() == 0 ? unit.fromMib(mib) : -1;
            names.add(order.get(i).name());
        }
        return new Candidate(a.pod(), a.podUid(), seq, a, null, List.copyOf(names), List.copyOf(order), units);
    }

    public static Candidate unplaced(PodInfo info, MemoryUnit unit, long seq, String problem) {
        var order = new ArrayList<ContainerRequest>();
        for (ContainerRequest c : info.containers()) if (c.init() && c.memMib() > 0) order.add(c);
        for (ContainerRequest c : info.containers()) if (!c.init() && c.memMib() > 0) order.add(c);
        long[] units = new long[order.size()];
        var names = new ArrayList<String>();
        for (int i = 0; i < units.length; i++) {
            long mib = order.get(i).memMib();
            units[i] = mib % unit.mibPerUnit() == 0 ? unit.fromMib(mib) : -1;
            names.add(order.get(i).name());
        }
        return new Candidate(info.key(), info.uid(), seq, null, problem, List.copyOf(names), List.of(), units);
    }

    public boolean isPlaced() { return allocation != null; }

    /** Index of the first container not in {@code answered} that asks {@code want} units, or -1. */
    public int firstOpen(long want, Claims answered) {
        for (int i = 0; i < units.length; i++) if (units[i] == want && !answered.has(i)) return i;
        return -1;
    }

    /** Index of the container called {@code name}, or -1. */
    public int indexOf(String name) { return names.indexOf(name); }

    /** Which of a candidate's containers were answered by this process; immutable. */
    public record Claims(long mask, int size) {
        public static final Claims NONE = new Claims(0, 0);

        public boolean has(int i) { return (mask & (1L << i)) != 0; }

        public Claims with(int i, int total) { return new Claims(mask | (1L << i), total); }

        public Claims without(int i) { return new Claims(mask & ~(1L << i), size); }

        public boolean complete() { return size > 0 && Long.bitCount(mask) >= size; }

        public boolean started() { return mask != 0; }
    }
}
